import { rawBody } from '../../platform/http/app.ts';
import { unauthorized, validationFailed } from '../../platform/http/errors.ts';
import type { operations } from '../../contracts/openapi/ol.ts';
import type { SecurityHandler, Handlers } from '../../platform/http/operations.ts';
import { ok } from '../../platform/http/reply.ts';
import type { PaymentProvider } from './provider.ts';
import type { Payments } from './service.ts';

/**
 * `paymentWebhookSignature`: a webhook is the provider's only if its signature header is the HMAC of
 * the exact raw body under the secret key (compared in constant time). Anything else is a 401 before
 * the body is even read.
 */
export function webhookSignatureAuth(provider: PaymentProvider): SecurityHandler {
  return (call) => {
    if (!provider.verifyWebhook(call.req.headers, rawBody(call.req))) {
      throw unauthorized(
        'payment.webhook_signature_invalid',
        'The webhook signature is missing or does not match the body.',
      );
    }
    call.principal = { kind: 'service' };
  };
}

export function paymentRoutes(payments: Payments, provider: PaymentProvider): Handlers<operations> {
  return {
    receivePaymentWebhook: async (call) => {
      let notice;
      try {
        notice = provider.readWebhook(call.body);
      } catch (err) {
        throw validationFailed(
          [{ field: 'body', issue: (err as Error).message }],
          'The webhook body is not one the payment provider sends.',
        );
      }
      const { duplicate } = await payments.receiveWebhook(notice);
      return ok({ received: true, duplicate });
    },
    verifyPayment: async (call) => ok(await payments.verify(String(call.params.reference), call.principal!.userId!)),
  };
}
