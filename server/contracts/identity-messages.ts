// The messages of orchestrator.v1.IdentityService (proto/orchestrator/v1/identity.proto) as
// proto-loader hands them over: snake_case field names, unset strings as '', repeated fields as arrays.
// The contract is shared by its server (the Orchestrator) and its client (CAP).

export interface VerifyIdentityRequest {
  user_id: string;
  type: string;
  identification_number: string;
  first_name: string;
  last_name: string;
  date_of_birth: string;
}

export interface VerifyIdentityResponse {
  verified: boolean;
  provider: string;
  provider_reference: string;
  /** Empty when not verified. */
  verified_at: string;
  /** `verified`, `name_mismatch`, `dob_mismatch` or `not_found`. */
  outcome: string;
}

export interface ProvisionAccountRequest {
  email: string;
  intents: string[];
  correlation_id: string;
  display_name: string;
  /** `new_account` or `existing_member`; a mail hint only. */
  notify_kind: string;
  centre_name: string;
  role: string;
}

export interface ProvisionAccountResponse {
  user_id: string;
  is_new: boolean;
}

export interface FindAccountsRequest {
  emails: string[];
}

export interface FoundAccount {
  user_id: string;
  email: string;
  /** `pending_verification`, `active`, `suspended` or `deactivated`. */
  status: string;
  must_change_password: boolean;
}

export interface FindAccountsResponse {
  accounts: FoundAccount[];
}
