// The messages of orchestrator.v1.PaymentsService (proto/orchestrator/v1/payments.proto) as
// proto-loader hands them over: snake_case field names, unset strings as '', int64 as a decimal
// string, enums by name. Shared by its server (the Orchestrator) and its clients (CAP, the LMS).

export const paymentPurposeNames = ['PAYMENT_PURPOSE_CAP_APPLICATION', 'PAYMENT_PURPOSE_LMS_ENROLLMENT'] as const;

export interface InitiatePaymentRequest {
  payer_user_id: string;
  /** `PAYMENT_PURPOSE_CAP_APPLICATION` or `PAYMENT_PURPOSE_LMS_ENROLLMENT` (a client may also send the number). */
  purpose: string | number;
  purpose_reference_id: string;
  /** Minor units; a client may send a number or a decimal string, the server receives a string. */
  amount_minor: string | number;
  currency: string;
  beneficiary_centre_id: string;
  idempotency_key: string;
  return_url: string;
}

export interface InitiatePaymentResponse {
  payment_id: string;
  reference: string;
  checkout_url: string;
}

export interface RefundPaymentRequest {
  payment_id: string;
  reason: string;
}

export interface RefundPaymentResponse {
  payment_id: string;
  /** `refunding` or `refunded`. */
  status: string;
}
