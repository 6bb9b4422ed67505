import { callUnary } from '../platform/grpc/client.ts';
import { serviceNames } from '../platform/grpc/proto.ts';
import type {
  InitiatePaymentRequest,
  InitiatePaymentResponse,
  RefundPaymentRequest,
  RefundPaymentResponse,
} from './payment-messages.ts';

/**
 * The client of orchestrator.v1.PaymentsService (proto/orchestrator/v1/payments.proto) that CAP and the
 * LMS use. `address` is read per call: in one process the Orchestrator's listener is known only once it
 * is up.
 */
export function createPaymentsClient(address: () => string, serviceKey: string) {
  return {
    initiatePayment: (request: InitiatePaymentRequest) =>
      callUnary<InitiatePaymentResponse>(address(), serviceKey, `${serviceNames.payments}.InitiatePayment`, request),
    refundPayment: (request: RefundPaymentRequest) =>
      callUnary<RefundPaymentResponse>(address(), serviceKey, `${serviceNames.payments}.RefundPayment`, request),
  };
}

export type PaymentsClient = ReturnType<typeof createPaymentsClient>;
