/**
 * The message contracts of `payment.completed` and `payment.refunded` (Orchestrator -> CAP, Orchestrator
 * -> LMS), registered into the OL message pacts of user-events.consumer.test.ts (one file writes
 * pacts/cap-ol.json and pacts/lms-ol.json, so the interactions of one consumer-provider pair stay in one
 * pact).
 *
 * The consumer side of each interaction is the reader both services use (`readPaymentCompleted`,
 * `readPaymentRefunded`) and the facts each needs from the event. The consumers themselves (CAP moves the
 * application on and credits or debits the centre; the LMS grants or takes back the course) are
 * specified in test/cap/payments*.test.ts, test/cap/withdrawals*.test.ts and test/lms/payment-refunds.test.ts,
 * where the payment is real; an example message here names an application no database holds.
 */
import type { ExecutionContext, TestFn } from 'ava';
import { MatchersV3, type PactV4 } from '@pact-foundation/pact';
import { readPaymentCompleted } from '../../server/contracts/payment-completed.ts';
import { readPaymentRefunded } from '../../server/contracts/payment-refunded.ts';
import { isoDateTime, ulid } from './support.ts';

const { regex, string } = MatchersV3;

const money = (example: string) => ({
  amountMinorUnits: regex('^[1-9][0-9]*$', example),
  currency: regex('^[A-Z]{3}$', 'NGN'),
});

function paymentCompleted(eventId: string, data: Record<string, unknown>) {
  return {
    id: ulid(eventId),
    type: 'payment.completed',
    occurredAt: isoDateTime(),
    source: 'ol',
    data: {
      paymentId: ulid('01J9Z8X7W6V5T4S3R2Q1P0PAY1'),
      reference: regex('^PAY-[0-9A-HJKMNP-TV-Z]{26}$', 'PAY-01J9Z8X7W6V5T4S3R2Q1P0PAY1'),
      payerUserId: ulid('01J9Z8X7W6V5T4S3R2Q1P0N9M8'),
      amount: money('1500000'),
      provider: string('sandbox'),
      completedAt: isoDateTime('2024-05-01T09:31:12.000Z'),
      ...data,
    },
  };
}

/** Registers the payment.completed message interactions of CAP and the LMS on the Orchestrator. */
export function paymentCompletedPacts(test: TestFn, pact: (consumer: string, provider: string) => PactV4): void {
  test.serial(
    'CAP reads payment.completed for an application: the application, the payer, the centre and the gross amount',
    async (t) => {
      await pact('cap', 'ol')
        .addAsynchronousInteraction()
        .given('a payment.completed event was published', { purpose: 'cap_application' })
        .expectsToReceive('a payment.completed event for a CAP application', (m) =>
          m.withJSONContent(
            paymentCompleted('01J9Z8X7W6V5T4S3R2Q1P0EV05', {
              purpose: 'cap_application',
              // The CAP application id (CAP mints ULIDs).
              purposeReferenceId: ulid('01J9Z8X7W6V5T4S3R2Q1P0APP1'),
              // The centre credited net of the platform fee.
              beneficiaryCentreId: ulid('01J9Z8X7W6V5T4S3R2Q1P0CEN1'),
            }),
          ),
        )
        .executeTest(async (message) => checkMessage(t, message.contents.content, 'cap_application'));
    },
  );

  test.serial(
    'the LMS reads payment.completed for an enrollment: the enrollment, the payer and the amount',
    async (t) => {
      await pact('lms', 'ol')
        .addAsynchronousInteraction()
        .given('a payment.completed event was published', { purpose: 'lms_enrollment' })
        .expectsToReceive('a payment.completed event for an LMS enrollment', (m) =>
          m.withJSONContent(
            paymentCompleted('01J9Z8X7W6V5T4S3R2Q1P0EV06', {
              purpose: 'lms_enrollment',
              purposeReferenceId: ulid('01J9Z8X7W6V5T4S3R2Q1P0ENR1'),
              beneficiaryCentreId: null,
            }),
          ),
        )
        .executeTest(async (message) => checkMessage(t, message.contents.content, 'lms_enrollment'));
    },
  );
}

/** Registers the payment.refunded message interactions of CAP and the LMS on the Orchestrator. */
export function paymentRefundedPacts(test: TestFn, pact: (consumer: string, provider: string) => PactV4): void {
  test.serial(
    'CAP reads payment.refunded for an application: the payment, the application, the centre and the gross amount given back',
    async (t) => {
      await pact('cap', 'ol')
        .addAsynchronousInteraction()
        .given('a payment.refunded event was published')
        .expectsToReceive('a payment.refunded event for a CAP application', (m) =>
          m.withJSONContent({
            id: ulid('01J9Z8X7W6V5T4S3R2Q1P0EV07'),
            type: 'payment.refunded',
            occurredAt: isoDateTime(),
            source: 'ol',
            data: {
              paymentId: ulid('01J9Z8X7W6V5T4S3R2Q1P0PAY2'),
              reference: regex('^PAY-[0-9A-HJKMNP-TV-Z]{26}$', 'PAY-01J9Z8X7W6V5T4S3R2Q1P0PAY2'),
              purpose: 'cap_application',
              purposeReferenceId: ulid('01J9Z8X7W6V5T4S3R2Q1P0APP2'),
              payerUserId: ulid('01J9Z8X7W6V5T4S3R2Q1P0N9M8'),
              amount: money('1500000'),
              // The centre whose wallet gives the payment back.
              beneficiaryCentreId: ulid('01J9Z8X7W6V5T4S3R2Q1P0CEN1'),
              provider: string('sandbox'),
              refundedAt: isoDateTime('2024-05-02T10:00:00.000Z'),
            },
          }),
        )
        .executeTest(async (message) => {
          const event = message.contents.content as { type: string; source: string; data: Record<string, unknown> };
          t.is(event.type, 'payment.refunded');
          t.is(event.source, 'ol');
          const data = readPaymentRefunded(event.data);
          t.is(data.purpose, 'cap_application');
          t.is(data.reference, `PAY-${data.paymentId}`);
          t.truthy(data.beneficiaryCentreId, 'CAP debits the beneficiary centre');
        });
    },
  );

  test.serial(
    'the LMS reads payment.refunded for an enrollment: the payment whose checkout it takes back',
    async (t) => {
      await pact('lms', 'ol')
        .addAsynchronousInteraction()
        .given('a payment.refunded event was published', { purpose: 'lms_enrollment' })
        .expectsToReceive('a payment.refunded event for an LMS enrollment', (m) =>
          m.withJSONContent({
            id: ulid('01J9Z8X7W6V5T4S3R2Q1P0EV08'),
            type: 'payment.refunded',
            occurredAt: isoDateTime(),
            source: 'ol',
            data: {
              // The LMS finds the checkout it takes back by the payment id.
              paymentId: ulid('01J9Z8X7W6V5T4S3R2Q1P0PAY3'),
              reference: regex('^PAY-[0-9A-HJKMNP-TV-Z]{26}$', 'PAY-01J9Z8X7W6V5T4S3R2Q1P0PAY3'),
              purpose: 'lms_enrollment',
              purposeReferenceId: ulid('01J9Z8X7W6V5T4S3R2Q1P0ENR2'),
              payerUserId: ulid('01J9Z8X7W6V5T4S3R2Q1P0N9M8'),
              amount: money('1500000'),
              beneficiaryCentreId: null,
              provider: string('sandbox'),
              refundedAt: isoDateTime('2024-05-02T10:00:00.000Z'),
            },
          }),
        )
        .executeTest(async (message) => {
          const event = message.contents.content as { type: string; source: string; data: Record<string, unknown> };
          t.is(event.type, 'payment.refunded');
          t.is(event.source, 'ol');
          const data = readPaymentRefunded(event.data);
          t.is(data.purpose, 'lms_enrollment');
          t.is(data.reference, `PAY-${data.paymentId}`);
          t.is(data.beneficiaryCentreId, null);
        });
    },
  );
}

function checkMessage(t: ExecutionContext, content: unknown, purpose: 'cap_application' | 'lms_enrollment'): void {
  const event = content as { type: string; source: string; data: Record<string, unknown> };
  t.is(event.type, 'payment.completed');
  t.is(event.source, 'ol');
  const data = readPaymentCompleted(event.data);
  t.is(data.purpose, purpose);
  t.is(data.reference, `PAY-${data.paymentId}`);
  t.true(BigInt(data.amount.amountMinorUnits) > 0n);
  if (purpose === 'cap_application') t.truthy(data.beneficiaryCentreId, 'CAP credits the beneficiary centre');
  else t.is(data.beneficiaryCentreId, null);
}
