import test from 'ava';
import {
  findTransition,
  paymentStatuses,
  paymentTransitions,
  refusal,
  type PaymentActor,
} from '../../server/orchestrator/payments/lifecycle.ts';

// The payment lifecycle table, move by move: every move the table has succeeds for its actor (with its
// guards holding) and every other move is refused with the table's code. The moves made through the
// real platform (webhooks, verify, InitiatePayment) are in ol-payments.test.ts.

const actors: PaymentActor[] = ['orchestrator', 'provider'];
const payment = { amountMinor: 1500000n, currency: 'NGN' };
const sameReport = { amountMinor: 1500000n, currency: 'NGN' };

const allowed = new Set([
  'initiated>pending>orchestrator',
  'pending>succeeded>provider',
  'pending>failed>provider',
  'pending>abandoned>provider',
  'succeeded>refunding>orchestrator',
  'refunding>refunded>provider',
  'succeeded>refunded>provider',
]);

for (const from of paymentStatuses) {
  for (const to of paymentStatuses) {
    for (const actor of actors) {
      const key = `${from}>${to}>${actor}`;
      test(`${from} -> ${to} by the ${actor} is ${allowed.has(key) ? 'allowed' : 'refused'}`, (t) => {
        const outcome = refusal(from, to, actor, payment, sameReport);
        if (allowed.has(key)) t.is(outcome, undefined);
        else t.is(outcome?.code, 'payment.transition_not_allowed');
      });
    }
  }
}

test('the table has exactly the moves above; success emits payment.completed, a decline or abandonment payment.failed, a refund payment.refunded', (t) => {
  t.deepEqual(
    new Set(
      paymentTransitions.flatMap((m) => m.from.flatMap((from) => m.by.map((actor) => `${from}>${m.to}>${actor}`))),
    ),
    allowed,
  );
  t.deepEqual(findTransition('pending', 'succeeded')?.emits, ['payment.completed']);
  t.deepEqual(
    paymentTransitions.filter((m) => m.emits.length > 0).map((m) => `${m.to}:${m.emits.join()}`),
    ['succeeded:payment.completed', 'failed:payment.failed', 'abandoned:payment.failed', 'refunded:payment.refunded'],
  );
});

test("a provider's success for another amount or currency, or without a report, fails the guard", (t) => {
  t.is(
    refusal('pending', 'succeeded', 'provider', payment, { amountMinor: 1500001n, currency: 'NGN' })?.code,
    'payment.guard_failed',
  );
  t.is(
    refusal('pending', 'succeeded', 'provider', payment, { amountMinor: 1500000n, currency: 'USD' })?.code,
    'payment.guard_failed',
  );
  t.is(refusal('pending', 'succeeded', 'provider', payment)?.code, 'payment.guard_failed');
  t.is(
    refusal('refunding', 'refunded', 'provider', payment, { amountMinor: 1n, currency: 'NGN' })?.code,
    'payment.guard_failed',
    'a refund is of the whole payment',
  );
  // A decline is not about the amount: no guard.
  t.is(refusal('pending', 'failed', 'provider', payment, { amountMinor: 1n, currency: 'NGN' }), undefined);
});
