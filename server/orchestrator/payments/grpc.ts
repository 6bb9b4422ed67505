import { status } from '@grpc/grpc-js';
import { GrpcError } from '../../platform/grpc/errors.ts';
import {
  paymentPurposeNames,
  type InitiatePaymentRequest,
  type InitiatePaymentResponse,
  type RefundPaymentRequest,
  type RefundPaymentResponse,
} from '../../contracts/payment-messages.ts';
import { serviceDefinition, serviceNames } from '../../platform/grpc/proto.ts';
import type { GrpcServiceEntry } from '../../platform/grpc/server.ts';
import { AppError } from '../../platform/http/errors.ts';
import { isUlid } from '../../platform/ids.ts';
import { check, present, within, type Rule } from '../grpc.ts';
import type { PaymentPurpose } from './models.ts';
import type { Payments } from './service.ts';

const int64Max = 9223372036854775807n;

const isPurpose = (value: unknown): value is (typeof paymentPurposeNames)[number] =>
  (paymentPurposeNames as readonly unknown[]).includes(value);

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

const initiateRules: Rule<InitiatePaymentRequest>[] = [
  { field: 'payer_user_id', valid: (r) => isUlid(r.payer_user_id), issue: 'must be an Orchestrator user id (a ULID)' },
  { field: 'purpose', valid: (r) => isPurpose(r.purpose), issue: `must be one of: ${paymentPurposeNames.join(', ')}` },
  {
    field: 'purpose_reference_id',
    valid: (r) => present(r.purpose_reference_id) && within(r.purpose_reference_id, 100),
    issue: 'is required, at most 100 characters',
  },
  {
    field: 'amount_minor',
    valid: (r) => /^[1-9][0-9]{0,18}$/.test(String(r.amount_minor)) && BigInt(r.amount_minor) <= int64Max,
    issue: 'must be a whole number of minor units greater than zero',
  },
  {
    field: 'currency',
    valid: (r) => /^[A-Z]{3}$/.test(r.currency),
    issue: 'must be an ISO 4217 code in capitals, e.g. NGN',
  },
  {
    field: 'beneficiary_centre_id',
    valid: (r) => within(r.beneficiary_centre_id, 100),
    issue: 'must be at most 100 characters',
  },
  {
    field: 'idempotency_key',
    valid: (r) => /^[\x21-\x7e]{1,200}$/.test(r.idempotency_key),
    issue: 'is required: 1 to 200 visible ASCII characters, no spaces',
  },
  {
    field: 'return_url',
    valid: (r) => r.return_url === '' || (within(r.return_url, 2000) && isHttpUrl(r.return_url)),
    issue: 'must be empty or an http(s) URL of at most 2000 characters',
  },
];

const refundRules: Rule<RefundPaymentRequest>[] = [
  { field: 'payment_id', valid: (r) => isUlid(r.payment_id), issue: 'must be an Orchestrator payment id (a ULID)' },
  {
    field: 'reason',
    valid: (r) => present(r.reason) && within(r.reason, 500),
    issue: 'is required, at most 500 characters',
  },
];

/** The gRPC status of each use-case error InitiatePayment and RefundPayment can meet; the message goes to the caller as it is. */
const statusOf: Record<string, status> = {
  'payment.not_found': status.NOT_FOUND,
  'payment.not_refundable': status.FAILED_PRECONDITION,
  'payment.payer_unknown': status.NOT_FOUND,
  'payment.payer_inactive': status.FAILED_PRECONDITION,
  'payment.idempotency_key_reused': status.ALREADY_EXISTS,
  'payment.currency_unsupported': status.INVALID_ARGUMENT,
  'payment.provider_unavailable': status.UNAVAILABLE,
};

function asGrpcError(err: unknown): unknown {
  if (err instanceof AppError && statusOf[err.code] !== undefined)
    return new GrpcError(statusOf[err.code]!, err.message);
  return err;
}

/** `PAYMENT_PURPOSE_CAP_APPLICATION` -> `cap_application` (the proto's own rule). */
const purposeOf = (name: string) => name.replace(/^PAYMENT_PURPOSE_/, '').toLowerCase() as PaymentPurpose;

/**
 * orchestrator.v1.PaymentsService: InitiatePayment checks the request and hands it to the payments use
 * case. The service key, status mapping and call logging are the gRPC server's.
 */
export function paymentsService(deps: { payments: Payments }): GrpcServiceEntry {
  return {
    definition: serviceDefinition(serviceNames.payments),
    implementation: {
      async InitiatePayment(request: InitiatePaymentRequest): Promise<InitiatePaymentResponse> {
        check(request, initiateRules);
        try {
          const payment = await deps.payments.initiate({
            payerUserId: request.payer_user_id,
            purpose: purposeOf(String(request.purpose)),
            purposeReferenceId: request.purpose_reference_id.trim(),
            amountMinor: BigInt(request.amount_minor),
            currency: request.currency,
            beneficiaryCentreId: request.beneficiary_centre_id.trim() || null,
            idempotencyKey: request.idempotency_key,
            returnUrl: request.return_url || null,
          });
          return { payment_id: payment.paymentId, reference: payment.reference, checkout_url: payment.checkoutUrl };
        } catch (err) {
          throw asGrpcError(err);
        }
      },
      async RefundPayment(request: RefundPaymentRequest): Promise<RefundPaymentResponse> {
        check(request, refundRules);
        try {
          const refund = await deps.payments.refund(request.payment_id, request.reason.trim());
          return { payment_id: refund.paymentId, status: refund.status };
        } catch (err) {
          throw asGrpcError(err);
        }
      },
    },
  };
}
