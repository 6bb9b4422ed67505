import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import { devPaymentSecretKey } from '../../server/platform/config.ts';
import { newId } from '../../server/platform/ids.ts';
import { sign } from '../../server/orchestrator/payments/sandbox/signature.ts';
import { createSequelize } from '../../server/platform/db/database.ts';
import { createEventRuntime } from '../../server/platform/events/runtime.ts';
import { call, captureLogs, eventually, sql, type JsonResponse, type TestPlatform } from './platform.ts';

// A PaymentsService client written from proto/ alone, the way CAP, the LMS or another team would write one.
const paymentsProto = protoLoader.loadSync(path.resolve('proto/orchestrator/v1/payments.proto'), {
  keepCase: true,
  defaults: true,
  longs: String,
  enums: String,
});
const PaymentsService = (grpc.loadPackageDefinition(paymentsProto) as any).orchestrator.v1.PaymentsService;

export interface InitiateResponse {
  payment_id: string;
  reference: string;
  checkout_url: string;
}

/** Calls InitiatePayment on the platform's OL gRPC port; `serviceKey: null` sends none. */
export function initiatePayment(
  platform: TestPlatform,
  request: Record<string, unknown>,
  serviceKey: string | null = platform.config.serviceApiKey,
): Promise<InitiateResponse> {
  const client = new PaymentsService(platform.urls.grpc, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  if (serviceKey !== null) metadata.set('x-platform-service-key', serviceKey);
  return new Promise((resolve, reject) =>
    client.InitiatePayment(request, metadata, (err: grpc.ServiceError | null, response: InitiateResponse) => {
      client.close();
      if (err) reject(err);
      else resolve(response);
    }),
  );
}

/** Calls RefundPayment on the platform's OL gRPC port; the error when it fails. */
export function refundPayment(
  platform: TestPlatform,
  request: Record<string, unknown>,
): Promise<{ payment_id: string; status: string } | grpc.ServiceError> {
  const client = new PaymentsService(platform.urls.grpc, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('x-platform-service-key', platform.config.serviceApiKey);
  return new Promise((resolve) =>
    client.RefundPayment(
      request,
      metadata,
      (err: grpc.ServiceError | null, response: { payment_id: string; status: string }) => {
        client.close();
        resolve(err ?? response);
      },
    ),
  );
}

/** The gRPC error an InitiatePayment call fails with (throws if it succeeds). */
export async function initiateError(
  platform: TestPlatform,
  request: Record<string, unknown>,
  serviceKey?: string | null,
): Promise<grpc.ServiceError> {
  const outcome = await initiatePayment(platform, request, serviceKey).then(
    () => undefined,
    (err: grpc.ServiceError) => err,
  );
  if (!outcome) throw new Error('InitiatePayment succeeded');
  return outcome;
}

/** A CAP application fee request for the payer, with a fresh idempotency key. */
export function feeRequest(payerUserId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    payer_user_id: payerUserId,
    purpose: 'PAYMENT_PURPOSE_CAP_APPLICATION',
    purpose_reference_id: newId(),
    amount_minor: '1500000',
    currency: 'NGN',
    beneficiary_centre_id: newId(),
    idempotency_key: `test:${newId()}`,
    ...overrides,
  };
}

const sandboxApi = (platform: TestPlatform, reference: string, action = '') =>
  platform.url(`/v1/ol/payments/sandbox/transactions/${encodeURIComponent(reference)}${action ? `/${action}` : ''}`);

/** What the checkout page's pay button does. */
export const payCheckout = (
  platform: TestPlatform,
  reference: string,
  body: Record<string, string> = {},
): Promise<JsonResponse> => call('POST', sandboxApi(platform, reference, 'pay'), { json: body });
export const declineCheckout = (platform: TestPlatform, reference: string): Promise<JsonResponse> =>
  call('POST', sandboxApi(platform, reference, 'decline'));
export const cancelCheckout = (platform: TestPlatform, reference: string): Promise<JsonResponse> =>
  call('POST', sandboxApi(platform, reference, 'cancel'));
export const sandboxTransaction = (platform: TestPlatform, reference: string): Promise<JsonResponse> =>
  call('GET', sandboxApi(platform, reference));

/** Posts a body to the Orchestrator's webhook, signed with the development secret key unless a signature is given (null: none). */
export function postWebhook(
  platform: TestPlatform,
  body: string,
  signature: string | null = sign(devPaymentSecretKey, body),
): Promise<JsonResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== null) headers['x-sandbox-signature'] = signature;
  return call('POST', platform.url('/v1/ol/payments/webhook'), { body, headers });
}

/** The webhooks the sandbox owes or sent for a reference, oldest first. */
export const sandboxWebhooks = (platform: TestPlatform, reference: string) =>
  sql<{ id: string; body: string; status: string; attempts: number; last_status_code: number | null }>(
    platform,
    'SELECT id, body, status, attempts, last_status_code FROM ol.sandbox_webhook_deliveries WHERE reference = $1 ORDER BY id',
    [reference],
  );

/** The payment.completed events in OL's outbox for a payment. */
export const completedEvents = (platform: TestPlatform, paymentId: string) =>
  sql<{ id: string; data: Record<string, any> }>(
    platform,
    `SELECT id, data FROM ol.outbox WHERE type = 'payment.completed' AND data->>'paymentId' = $1`,
    [paymentId],
  );

/** The payment's row in ol.payments (throws when there is none). */
export async function paymentRow(platform: TestPlatform, paymentId: string): Promise<Record<string, any>> {
  const [row] = await sql<Record<string, any>>(platform, 'SELECT * FROM ol.payments WHERE id = $1', [paymentId]);
  if (!row) throw new Error(`no payment ${paymentId}`);
  return row;
}

/**
 * Publishes `payment.completed` (or `payment.refunded`) for an LMS checkout three times at once, as three
 * events (an inbox only dedupes one event id), the way a provider that reports a payment again and again
 * would make the Orchestrator do; waits until the LMS consumed all three.
 */
export async function completedThreeTimes(
  platform: TestPlatform,
  paymentId: string,
  purposeReferenceId: string,
  amountMinorUnits: string,
  type: 'payment.completed' | 'payment.refunded' = 'payment.completed',
): Promise<void> {
  const row = await paymentRow(platform, paymentId);
  const data = {
    paymentId,
    reference: row.reference,
    purpose: 'lms_enrollment',
    purposeReferenceId,
    payerUserId: row.payer_user_id,
    amount: { amountMinorUnits, currency: 'NGN' },
    beneficiaryCentreId: null,
    provider: 'sandbox',
    [type === 'payment.completed' ? 'completedAt' : 'refundedAt']: new Date().toISOString(),
  };
  const sequelize = createSequelize(platform.databaseUrl, 'ol', 1);
  try {
    const ol = createEventRuntime(platform.databaseUrl, captureLogs().logger).forService('ol', 'ol', sequelize);
    const events = await Promise.all([1, 2, 3].map(() => sequelize.transaction((tx) => ol.publish(tx, type, data))));
    const ids = events.map((event) => event.id);
    await eventually(
      'all three deliveries are consumed',
      async () => (await sql(platform, 'SELECT 1 FROM lms.inbox WHERE event_id = ANY($1)', [ids])).length === 3,
    );
  } finally {
    await sequelize.close();
  }
}
