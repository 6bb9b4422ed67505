import { invalidArgument } from '../platform/grpc/errors.ts';
import { serviceDefinition, serviceNames } from '../platform/grpc/proto.ts';
import type { GrpcServiceEntry } from '../platform/grpc/server.ts';
import { AppError } from '../platform/http/errors.ts';
import type { Accounts } from './accounts/service.ts';
import type { IdentityVerification } from './identity/service.ts';
import type {
  FindAccountsRequest,
  FindAccountsResponse,
  ProvisionAccountRequest,
  ProvisionAccountResponse,
  VerifyIdentityRequest,
  VerifyIdentityResponse,
} from '../contracts/identity-messages.ts';

/** A request rule: when `valid` fails, the caller is told `<field> <issue>`. */
export interface Rule<Request> {
  field: string;
  valid(request: Request): boolean;
  issue: string | ((request: Request) => string);
}

/** The document types VerifyIdentity accepts, with the shape of their numbers. */
const documentTypes: Record<string, { pattern: RegExp; format: string }> = {
  nin: { pattern: /^\d{11}$/, format: 'exactly 11 digits' },
};
const intents = ['cap', 'lms'];
const notifyKinds = ['new_account', 'existing_member'];

export const present = (value: string) => value.trim() !== '';
export const within = (value: string, max: number) => [...value].length <= max;
const documentType = (type: string) => (Object.hasOwn(documentTypes, type) ? documentTypes[type] : undefined);

/** A real calendar date written YYYY-MM-DD, not after today. */
function isPastDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  // An impossible day (2001-02-30) either fails to parse or rolls over into another date.
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value && date.getTime() <= Date.now();
}

const verifyRules: Rule<VerifyIdentityRequest>[] = [
  { field: 'user_id', valid: (r) => present(r.user_id), issue: 'is required' },
  {
    field: 'type',
    valid: (r) => documentType(r.type) !== undefined,
    issue: `must be one of: ${Object.keys(documentTypes).join(', ')}`,
  },
  {
    field: 'identification_number',
    valid: (r) => documentType(r.type)?.pattern.test(r.identification_number) ?? true,
    issue: (r) => `must be ${documentType(r.type)!.format} for type ${r.type}`,
  },
  {
    field: 'first_name',
    valid: (r) => present(r.first_name) && within(r.first_name, 100),
    issue: 'is required, at most 100 characters',
  },
  {
    field: 'last_name',
    valid: (r) => present(r.last_name) && within(r.last_name, 100),
    issue: 'is required, at most 100 characters',
  },
  {
    field: 'date_of_birth',
    valid: (r) => isPastDate(r.date_of_birth),
    issue: 'must be a real date written YYYY-MM-DD, not in the future',
  },
];

const provisionRules: Rule<ProvisionAccountRequest>[] = [
  // The address's shape is checked by the accounts service, as for every other way in.
  { field: 'email', valid: (r) => present(r.email), issue: 'is required' },
  {
    field: 'intents',
    valid: (r) => r.intents.every((intent) => intents.includes(intent)),
    issue: `may hold only ${intents.join(', ')}`,
  },
  // Only a hint: the lookup decides, and only a new account is mailed (an existing one changes in no way).
  {
    field: 'notify_kind',
    valid: (r) => r.notify_kind === '' || notifyKinds.includes(r.notify_kind),
    issue: `must be empty or one of: ${notifyKinds.join(', ')}`,
  },
  { field: 'display_name', valid: (r) => within(r.display_name, 100), issue: 'must be at most 100 characters' },
  { field: 'centre_name', valid: (r) => within(r.centre_name, 200), issue: 'must be at most 200 characters' },
  { field: 'role', valid: (r) => within(r.role, 50), issue: 'must be at most 50 characters' },
  { field: 'correlation_id', valid: (r) => within(r.correlation_id, 100), issue: 'must be at most 100 characters' },
];

const findRules: Rule<FindAccountsRequest>[] = [
  {
    field: 'emails',
    valid: (r) => r.emails.length >= 1 && r.emails.length <= 1000,
    issue: 'must hold 1 to 1000 addresses',
  },
  {
    field: 'emails',
    valid: (r) => r.emails.every((e) => within(e, 320)),
    issue: 'must be at most 320 characters each',
  },
];

/** Throws INVALID_ARGUMENT naming every broken rule. Issues describe the rule, never echo the value. */
export function check<Request>(request: Request, rules: Rule<Request>[]): void {
  const problems = rules
    .filter((rule) => !rule.valid(request))
    .map((rule) => `${rule.field} ${typeof rule.issue === 'function' ? rule.issue(request) : rule.issue}`);
  if (problems.length > 0) throw invalidArgument(problems.join('; '));
}

/** A 422 of a use case, said the gRPC way. */
function asInvalidArgument(err: unknown): unknown {
  if (!(err instanceof AppError) || err.status !== 422) return err;
  return invalidArgument(err.details?.map((detail) => `${detail.field} ${detail.issue}`).join('; ') ?? err.message);
}

/**
 * orchestrator.v1.IdentityService: checks and maps each request onto the identity and accounts
 * use cases. The service key, status mapping and call logging are the gRPC server's (no payload is logged).
 */
export function identityService(deps: { identity: IdentityVerification; accounts: Accounts }): GrpcServiceEntry {
  return {
    definition: serviceDefinition(serviceNames.identity),
    implementation: {
      async VerifyIdentity(request: VerifyIdentityRequest): Promise<VerifyIdentityResponse> {
        check(request, verifyRules);
        const result = await deps.identity.verify({
          userId: request.user_id.trim(),
          type: request.type,
          number: request.identification_number,
          firstName: request.first_name.trim(),
          lastName: request.last_name.trim(),
          dateOfBirth: request.date_of_birth,
        });
        return {
          verified: result.verified,
          provider: result.provider,
          provider_reference: result.providerReference,
          verified_at: result.verifiedAt?.toISOString() ?? '',
          outcome: result.outcome,
        };
      },

      async ProvisionAccount(request: ProvisionAccountRequest): Promise<ProvisionAccountResponse> {
        check(request, provisionRules);
        try {
          const { userId, isNew } = await deps.accounts.provisionAccount({
            email: request.email,
            intents: request.intents.length > 0 ? request.intents : ['cap'],
            correlationId: request.correlation_id,
            // An invitation to a centre is mailed to an existing member too; the hint can ask for it as well.
            notifyExisting: request.notify_kind === 'existing_member' || request.centre_name.trim() !== '',
            displayName: request.display_name.trim(),
            centreName: request.centre_name.trim(),
            role: request.role.trim(),
          });
          return { user_id: userId, is_new: isNew };
        } catch (err) {
          throw asInvalidArgument(err);
        }
      },

      async FindAccounts(request: FindAccountsRequest): Promise<FindAccountsResponse> {
        check(request, findRules);
        const accounts = await deps.accounts.findAccounts(request.emails);
        return {
          accounts: accounts.map((a) => ({
            user_id: a.userId,
            email: a.email,
            status: a.status,
            must_change_password: a.mustChangePassword,
          })),
        };
      },
    },
  };
}
