/**
 * `capctl pay <target>`: completes a sandbox checkout without a browser, through the same calls the
 * checkout page's buttons make (so the sandbox signs and delivers the webhook exactly as it does for a
 * person), then waits until the Orchestrator has acknowledged the webhook. `capctl pay <reference>
 * --refund`: an operator refunds a succeeded payment through the Orchestrator's gRPC RefundPayment (the
 * path CAP and the LMS refund by), then waits for the provider's refund. Only light modules load at
 * start-up; the rest is imported when the command runs.
 */
import type { Command } from 'commander';
import { exitCodes, print, UsageError } from '../output.ts';
import type { Api, Session } from '../session.ts';

/** A sandbox transaction as `GET /v1/ol/payments/sandbox/transactions/{reference}` answers it. */
interface SandboxTransaction {
  reference: string;
  status: 'pending' | 'success' | 'failed' | 'abandoned' | 'refunded';
  amount: { amountMinorUnits: string; currency: string };
  description: string;
  gatewayResponse: string | null;
  card: { brand: string; last4: string } | null;
  redirectUrl: string | null;
  webhook: {
    status: 'pending' | 'delivered' | 'failed';
    attempts: number;
    lastStatusCode: number | null;
    deliveredAt: string | null;
  } | null;
}

interface PayOptions {
  decline?: boolean;
  cancel?: boolean;
  refund?: boolean;
  reason: string;
  serviceKey?: string;
  card?: string;
  expiry?: string;
  cvv?: string;
  wait: boolean;
  timeout: string;
  baseUrl?: string;
  profile: string;
  json?: boolean;
}

const transactionPath = (reference: string) => `/v1/ol/payments/sandbox/transactions/${encodeURIComponent(reference)}`;

/**
 * One way of naming what to pay. `capctl pay` tries these in order and pays the first reference one
 * answers; a later kind of target (a CAP application id: its open payment) is one more entry, placed
 * after the payment id so that a payment id keeps its meaning.
 */
export interface PayTarget {
  /** For the error when nothing matches: "a payment reference (PAY-...)". */
  describes: string;
  /** The sandbox reference this target names, or undefined when it is not this kind of target. */
  resolve(target: string, api: Api, session?: Session): Promise<string | undefined>;
}

async function hasCheckout(api: Api, reference: string): Promise<boolean> {
  const { ApiError } = await import('../session.ts');
  try {
    await api.call('GET', transactionPath(reference));
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return false;
    throw err;
  }
}

export const payTargets: PayTarget[] = [
  {
    describes: 'a checkout URL (.../payments/sandbox/checkout/PAY-...)',
    resolve: async (target) => /^https?:\/\/.+\/payments\/sandbox\/checkout\/([^/?#]+)/.exec(target)?.[1],
  },
  {
    describes: 'a payment reference (PAY-...)',
    resolve: async (target) => (/^PAY-[A-Za-z0-9]+$/.test(target) ? target : undefined),
  },
  {
    describes: 'a payment id (the reference is PAY-<id>)',
    resolve: async (target, api) =>
      /^[0-9A-HJKMNP-TV-Z]{26}$/.test(target) && (await hasCheckout(api, `PAY-${target}`))
        ? `PAY-${target}`
        : undefined,
  },
  {
    describes:
      'a CAP application id at its payment stage (as the signed-in candidate: its payment is started or resumed)',
    async resolve(target, _api, session) {
      if (!/^[0-9A-HJKMNP-TV-Z]{26}$/.test(target) || !session) return undefined;
      const { ApiError } = await import('../session.ts');
      try {
        const started = await session.call<{ checkoutUrl: string }>(
          'POST',
          `/v1/cap/applications/${target}/pay`,
          undefined,
          { 'X-CAP-PERSONA': 'candidate' },
        );
        return /\/payments\/sandbox\/checkout\/([^/?#]+)/.exec(started.checkoutUrl)?.[1];
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return undefined;
        throw err;
      }
    },
  },
];

/** Until the transaction's newest webhook is answered (or given up on), or `done` holds, or the time is up. */
async function waitForWebhook(
  api: Api,
  reference: string,
  timeoutMs: number,
  done: (tx: SandboxTransaction) => boolean = () => true,
): Promise<SandboxTransaction> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const tx = await api.call<SandboxTransaction>('GET', transactionPath(reference));
    if ((done(tx) && (!tx.webhook || tx.webhook.status !== 'pending')) || Date.now() > deadline) return tx;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The payment reference a refund names: `PAY-...`, the payment id, or its checkout URL. */
function refundReference(target: string): string | undefined {
  const fromUrl = /^https?:\/\/.+\/payments\/sandbox\/checkout\/([^/?#]+)/.exec(target)?.[1];
  if (fromUrl) return decodeURIComponent(fromUrl);
  if (/^PAY-[0-9A-HJKMNP-TV-Z]{26}$/.test(target)) return target;
  if (/^[0-9A-HJKMNP-TV-Z]{26}$/.test(target)) return `PAY-${target}`;
  return undefined;
}

/**
 * Refunds a payment in full by gRPC RefundPayment with the service key (an operator's credential, as
 * `capctl admin create` uses), then waits until the provider has refunded it and the Orchestrator has
 * acknowledged its refund webhook, so `payment.refunded` is on its way to CAP and the LMS.
 */
async function refund(api: Api, baseUrl: string, target: string, options: PayOptions): Promise<void> {
  const { CommandFailed } = await import('../session.ts');
  const reference = refundReference(target);
  if (!reference)
    throw new CommandFailed(
      `"${target}" names no payment: give its reference (PAY-...), its payment id or its checkout URL`,
    );
  const [{ status }, { callUnary, closeGrpcClients }, { GrpcCallError }, { devServiceKey, grpcAddresses }] =
    await Promise.all([
      import('@grpc/grpc-js'),
      import('../../server/platform/grpc/client.ts'),
      import('../../server/platform/grpc/errors.ts'),
      import('../grpc-address.ts'),
    ]);
  const { UnreachableError } = await import('../output.ts');
  const address = (await grpcAddresses(process.env.CAPCTL_GRPC_ADDRESS, baseUrl)).addressFor(
    'orchestrator.v1.PaymentsService',
  );
  let answer: { payment_id: string; status: string };
  try {
    answer = await callUnary(
      address,
      options.serviceKey ?? process.env.ORCHESTRATOR_SERVICE_API_KEY ?? devServiceKey,
      'orchestrator.v1.PaymentsService.RefundPayment',
      { payment_id: reference.slice('PAY-'.length), reason: options.reason },
    );
  } catch (err) {
    if (!(err instanceof GrpcCallError)) throw err;
    if (err.code === status.NOT_FOUND) throw new CommandFailed(`no payment has the reference ${reference}`);
    if (err.code === status.FAILED_PRECONDITION)
      throw new CommandFailed(`${reference} cannot be refunded: ${err.details}`);
    if (err.code === status.UNAUTHENTICATED)
      throw new CommandFailed(
        'the Orchestrator refused the service key (give it with --service-key or ORCHESTRATOR_SERVICE_API_KEY)',
      );
    if (err.code === status.UNAVAILABLE && /connect|No connection/i.test(err.details))
      throw new UnreachableError(`the Orchestrator's gRPC listener at ${address} cannot be reached`);
    throw new CommandFailed(
      `the refund of ${reference} failed: ${err.details} (nothing was refunded twice: try again)`,
    );
  } finally {
    closeGrpcClients();
  }
  const { formatMoney } = await import('../../server/platform/money.ts');
  const { ApiError } = await import('../session.ts');
  let tx: SandboxTransaction | undefined;
  try {
    tx = options.wait
      ? await waitForWebhook(api, reference, Number(options.timeout) * 1000, (t) => t.status === 'refunded')
      : await api.call<SandboxTransaction>('GET', transactionPath(reference));
  } catch (err) {
    // Another provider than the sandbox: the Orchestrator's answer is all there is to show.
    if (!(err instanceof ApiError && err.status === 404)) throw err;
  }
  const refunded = tx?.status === 'refunded' && tx.webhook?.status === 'delivered';
  const result = {
    paymentId: answer.payment_id,
    reference,
    status: refunded ? 'refunded' : answer.status,
    ...(tx ? { amount: tx.amount, description: tx.description, webhook: tx.webhook } : {}),
  };
  print(result, Boolean(options.json), () =>
    [
      `${result.status} ${tx ? `${formatMoney(tx.amount)} (${tx.description})` : answer.payment_id}`,
      `reference ${reference}`,
      refunded
        ? `refund webhook acknowledged by the Orchestrator (attempt ${tx!.webhook!.attempts}): payment.refunded is published`
        : 'the provider has not reported the refund yet; payment.refunded follows when it does',
    ].join('\n'),
  );
  if (options.wait && !refunded) process.exitCode = exitCodes.failed;
}

function describe(
  tx: SandboxTransaction,
  formatMoney: (m: SandboxTransaction['amount']) => string,
  waited: boolean,
): string {
  const amount = `${formatMoney(tx.amount)} (${tx.description})`;
  const lines = [
    tx.status === 'success'
      ? `paid ${amount} with ${tx.card?.brand} ending ${tx.card?.last4}: ${tx.gatewayResponse}`
      : tx.status === 'failed'
        ? `declined ${amount}: ${tx.gatewayResponse}`
        : `cancelled ${amount}: no webhook is sent; verify-by-reference tells the Orchestrator`,
    `reference ${tx.reference}`,
  ];
  const webhook = tx.webhook;
  if (webhook?.status === 'delivered')
    lines.push(`webhook acknowledged by the Orchestrator (attempt ${webhook.attempts})`);
  else if (webhook?.status === 'failed')
    lines.push(`webhook given up after ${webhook.attempts} attempts (last answer ${webhook.lastStatusCode ?? 'none'})`);
  else if (webhook && waited)
    lines.push(
      `webhook not acknowledged yet (attempt ${webhook.attempts}, last answer ${webhook.lastStatusCode ?? 'none'}); the sandbox keeps retrying`,
    );
  else if (webhook) lines.push('webhook queued');
  if (tx.redirectUrl) lines.push(`the checkout returns the payer to ${tx.redirectUrl}`);
  return lines.join('\n');
}

export function registerPay(program: Command): void {
  program
    .command('pay')
    .description('Complete a sandbox checkout without a browser: pay with a test card, decline or cancel')
    .argument('<target>', payTargets.map((t) => t.describes).join(', or '))
    .option('--decline', "the payer's bank declines (the checkout's Decline button)")
    .option('--cancel', 'the payer cancels (no webhook; the payment is abandoned on verify)')
    .option('--card <number>', 'a sandbox test card (default 4084 0840 8408 4081, approved)')
    .option('--expiry <MM/YY>', 'card expiry')
    .option('--cvv <digits>', 'card CVV')
    .option(
      '--refund',
      'refund the succeeded payment <target> in full (an operator: gRPC RefundPayment with the service key)',
    )
    .option('--reason <text>', 'why it is refunded (with --refund)', 'Refunded by an operator')
    .option(
      '--service-key <key>',
      'service key for --refund (env ORCHESTRATOR_SERVICE_API_KEY, else the development key)',
    )
    .option('--no-wait', 'do not wait for the Orchestrator to acknowledge the webhook')
    .option('--timeout <seconds>', 'how long to wait for the acknowledgement', '30')
    .option('--base-url <url>', "platform URL (env CAPCTL_BASE_URL, else the profile's)")
    .option(
      '--profile <name>',
      'session profile whose platform to use (and, for an application id, whose candidate pays)',
      'default',
    )
    .option('--json', 'print machine-readable JSON')
    .addHelpText(
      'after',
      '\nTest cards: 4084 0840 8408 4081, 5399 8383 8383 8381, 5060 6666 6666 6666 666 approve;' +
        '\n4000 0000 0000 0002 (issuer), 4000 0000 0000 9995 (insufficient funds), 4000 0000 0000 0069 (expired) decline.' +
        '\nExit codes: 0 done (paid, declined or cancelled as asked) and the webhook acknowledged; 1 refused, already' +
        '\nclosed, unknown target or webhook not acknowledged in time; 2 usage error; 3 platform unreachable.' +
        '\nWith --refund: 0 refunded and its webhook acknowledged; 1 unknown payment, not refundable (not succeeded),' +
        '\nthe service key refused, or the refund not reported in time.',
    )
    .action(async (target: string, options: PayOptions) => {
      if (options.refund && (options.decline || options.cancel || options.card || options.expiry || options.cvv))
        throw new UsageError('--refund refunds a payment: it takes no --decline, --cancel or card options');
      if (options.decline && options.cancel) throw new UsageError('--decline and --cancel exclude each other');
      if ((options.decline || options.cancel) && (options.card || options.expiry || options.cvv))
        throw new UsageError('card options go with paying, not with --decline or --cancel');
      const timeoutSeconds = Number(options.timeout);
      if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0)
        throw new UsageError('--timeout must be a positive number of seconds');
      const { CommandFailed, loadProfile, resolveBaseUrl, runCommand, Session, withApi } =
        await import('../session.ts');
      const { formatMoney } = await import('../../server/platform/money.ts');
      const json = Boolean(options.json);
      await runCommand(json, () =>
        withApi(resolveBaseUrl(options.baseUrl, loadProfile(options.profile)), async (api) => {
          if (options.refund)
            return refund(api, resolveBaseUrl(options.baseUrl, loadProfile(options.profile)), target.trim(), options);
          const profile = loadProfile(options.profile);
          const session = profile && new Session(api, options.profile, profile);
          let reference: string | undefined;
          for (const kind of payTargets) if ((reference = await kind.resolve(target.trim(), api, session))) break;
          if (!reference)
            throw new CommandFailed(
              `no sandbox checkout for "${target}": give ${payTargets.map((t) => t.describes).join(', or ')}`,
            );

          const before = await api.call<SandboxTransaction>('GET', transactionPath(reference));
          if (before.status !== 'pending')
            throw new CommandFailed(
              `${reference} is already closed (${before.status}${before.gatewayResponse ? `: ${before.gatewayResponse}` : ''})`,
            );
          const action = options.decline ? 'decline' : options.cancel ? 'cancel' : 'pay';
          const card = { cardNumber: options.card, expiry: options.expiry, cvv: options.cvv };
          let tx = await api.call<SandboxTransaction>(
            'POST',
            `${transactionPath(reference)}/${action}`,
            action === 'pay' ? { body: JSON.parse(JSON.stringify(card)) } : {},
          );
          if (options.wait && tx.webhook) tx = await waitForWebhook(api, reference, timeoutSeconds * 1000);
          print(tx, json, () => describe(tx, formatMoney, options.wait));
          if (options.wait && tx.webhook && tx.webhook.status !== 'delivered') process.exitCode = exitCodes.failed;
        }),
      );
    });
}
