import fs from 'node:fs';
import { QueryTypes } from 'sequelize';
import { projectPath } from '../../platform/paths.ts';
import {
  applyStates,
  loadStateDefinitions,
  substitute,
  type StateDefinition,
} from '../../platform/dev/provider-states.ts';
import { platformCall } from '../../platform/dev/http.ts';
import { callUnary } from '../../platform/grpc/client.ts';
import { notFound } from '../../platform/http/errors.ts';
import type { operations } from '../../contracts/openapi/ol.ts';
import type { Handlers } from '../../platform/http/operations.ts';
import { raw } from '../../platform/http/reply.ts';
import { newId } from '../../platform/ids.ts';
import type { EventType, PlatformEvent } from '../../platform/events/types.ts';
import type { ServiceDeps } from '../../platform/service.ts';

/**
 * The Orchestrator's provider states for contract tests (development mode only): accounts at each
 * stage of sign-up, a refreshed session, an account provisioned with a generated password, a sandbox
 * Google ID token, sandbox payments (pending, paid), and the events those published. Defined in
 * fixtures/states/ol.yaml; built through the public HTTP API, the dev mailbox and the gRPC
 * IdentityService and PaymentsService, as a client would.
 */
export function olProviderStateRoutes(deps: Pick<ServiceDeps, 'config' | 'peers' | 'sequelize'>): Handlers<operations> {
  const api = (method: 'GET' | 'POST' | 'DELETE', path: string, options: { body?: unknown; token?: string } = {}) =>
    platformCall(deps.peers.url('ol'), method, path, options);

  /** The newest mail of this template to the address, with the secret it carries (waits for the mailer). */
  async function mailed(email: string, template: string, secret: 'otp' | 'password'): Promise<string> {
    // The mail is sent by a queue worker, typically 50-150 ms after the request: look often.
    for (let attempt = 0; attempt < 250; attempt++) {
      const mails: Array<{ template: string; otp?: string; password?: string }> = (
        await api('GET', `/dev/mailbox?to=${encodeURIComponent(email)}`)
      ).data;
      const value = mails.find((mail) => mail.template === template && mail[secret])?.[secret];
      if (value) return value;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no ${template} mail reached ${email}`);
  }

  /** Registers an account and reads its verification code from the dev mailbox. */
  async function register(email: string, password: string, intents: unknown) {
    const { userId } = (await api('POST', '/auth/register', { body: { email, password, intents } })).data;
    return { userId, otp: await mailed(email, 'account_verify', 'otp') };
  }

  /** Creates the account as the platform's services do (gRPC ProvisionAccount), then signs in with the mailed password. */
  async function provision(email: string) {
    await callUnary(deps.peers.olGrpcAddress(), deps.config.serviceApiKey, 'IdentityService.ProvisionAccount', {
      email,
      intents: ['cap'],
      correlation_id: newId(),
      display_name: 'Bola Ade',
    });
    const password = await mailed(email, 'provisioned_account', 'password');
    const { accessToken, refreshToken, user } = (await api('POST', '/auth/login', { body: { email, password } })).data;
    return { password, userId: user.userId, accessToken, refreshToken };
  }

  /** The newest event of this type whose data has this key and value, as the relay hands it to the consumers. */
  async function publishedEvent(
    type: EventType,
    key: 'userId' | 'paymentId',
    value: string,
  ): Promise<PlatformEvent | undefined> {
    const [row] = await deps.sequelize.query<{
      id: string;
      type: EventType;
      occurred_at: Date;
      source: string;
      data: Record<string, unknown>;
    }>(
      `SELECT id, type, occurred_at, source, data FROM ol.outbox WHERE type = $1 AND data->>$2 = $3 ORDER BY id DESC LIMIT 1`,
      { bind: [type, key, value], type: QueryTypes.SELECT },
    );
    return (
      row && {
        id: row.id,
        type: row.type,
        occurredAt: row.occurred_at.toISOString(),
        source: row.source,
        data: row.data,
      }
    );
  }

  /**
   * A payment made the way the platform makes them: InitiatePayment over gRPC (as CAP or the LMS), then
   * for `paid` the sandbox checkout's pay button and the sandbox's signed webhook, waited for until the
   * Orchestrator has acknowledged it (so the payment succeeded and payment.completed is in the outbox).
   */
  async function makePayment(
    payerUserId: string,
    spec: { purpose: string; stage: string; amountMinor?: unknown; currency?: unknown },
  ) {
    const { payment_id: paymentId, reference } = await callUnary<{ payment_id: string; reference: string }>(
      deps.peers.olGrpcAddress(),
      deps.config.serviceApiKey,
      'PaymentsService.InitiatePayment',
      {
        payer_user_id: payerUserId,
        purpose: `PAYMENT_PURPOSE_${spec.purpose.toUpperCase()}`,
        purpose_reference_id: newId(),
        amount_minor: String(spec.amountMinor ?? '1500000'),
        currency: String(spec.currency ?? 'NGN'),
        beneficiary_centre_id: spec.purpose === 'cap_application' ? newId() : '',
        idempotency_key: `provider-state:${newId()}`,
      },
    );
    if (spec.stage === 'paid' || spec.stage === 'refunded') {
      await api('POST', `/payments/sandbox/transactions/${reference}/pay`, { body: {} });
      await until(
        `the webhook of ${reference} is acknowledged`,
        async () =>
          (await api('GET', `/payments/sandbox/transactions/${reference}`)).data.webhook?.status === 'delivered',
      );
    }
    if (spec.stage === 'refunded') {
      // As CAP refunds a withdrawn application: gRPC RefundPayment, then the sandbox's signed refund webhook.
      await callUnary(deps.peers.olGrpcAddress(), deps.config.serviceApiKey, 'PaymentsService.RefundPayment', {
        payment_id: paymentId,
        reason: 'provider state',
      });
      await until(`the refund webhook of ${reference} is acknowledged`, async () => {
        const tx = (await api('GET', `/payments/sandbox/transactions/${reference}`)).data;
        return tx.status === 'refunded' && tx.webhook?.status === 'delivered';
      });
    }
    return { paymentId, reference };
  }

  async function until(what: string, check: () => Promise<boolean>): Promise<void> {
    for (let attempt = 0; attempt < 750; attempt++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`timed out waiting until ${what}`);
  }

  /** Another verified user starts a thread with this one; waits until the notice is in the inbox. */
  async function conversationWith(userId: string, accessToken: string) {
    const senderEmail = `pact+${newId().toLowerCase()}@example.test`;
    const sender = await register(senderEmail, 'Pact-pass-2024', ['cap']);
    const signedIn = (
      await api('POST', '/auth/verify-account', {
        body: { email: senderEmail, otp: sender.otp, purpose: 'account_verify' },
      })
    ).data;
    const thread = (
      await api('POST', '/conversations', {
        body: { recipientId: userId, subject: 'Interview slot', message: 'Does Monday suit you?' },
        token: signedIn.accessToken,
      })
    ).data;
    let notificationId: string | undefined;
    await until('the conversation notice is in the inbox', async () =>
      Boolean((notificationId = (await api('GET', '/notifications', { token: accessToken })).data[0]?.id)),
    );
    return { conversationId: thread.id, notificationId, senderId: sender.userId };
  }

  /** Another active account, signed up the way a person does. */
  async function anotherUser() {
    const email = `pact+${newId().toLowerCase()}@example.test`;
    const { userId, otp } = await register(email, 'Pact-pass-2024', ['cap']);
    await api('POST', '/auth/verify-account', { body: { email, otp, purpose: 'account_verify' } });
    return userId as string;
  }

  /** An upload URL for passport.png (for `uploaded`, the fixture's bytes PUT to it; for `confirmed`, also confirmed). */
  async function asset(stage: string, accessToken: string) {
    const issued = (
      await api('POST', '/storage/upload-url', {
        body: { fileName: 'passport.png', mimeType: 'image/png', purpose: 'passport' },
        token: accessToken,
      })
    ).data;
    const url = new URL(issued.uploadUrl);
    if (stage === 'uploaded' || stage === 'confirmed') {
      const put = await fetch(url, {
        method: 'PUT',
        body: new Uint8Array(fs.readFileSync(projectPath('fixtures', 'files', 'passport.png'))),
        headers: { 'content-type': 'image/png' },
      });
      if (!put.ok) throw new Error(`the upload answered ${put.status}`);
    }
    if (stage === 'confirmed')
      await api('POST', '/storage/confirm', { body: { assetId: issued.assetId }, token: accessToken });
    return {
      assetId: issued.assetId,
      expires: url.searchParams.get('expires'),
      signature: url.searchParams.get('signature'),
    };
  }

  async function setUp(definition: StateDefinition, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const {
      account,
      googleIdToken,
      event,
      refreshed,
      payment,
      conversation,
      asset: assetStage,
      recipient,
      serviceKey,
    } = definition.creates as {
      account?: string;
      googleIdToken?: boolean;
      event?: EventType;
      refreshed?: boolean;
      payment?: Record<string, unknown>;
      conversation?: boolean;
      asset?: string;
      recipient?: boolean;
      serviceKey?: boolean;
    };
    const email = String(params.email ?? `pact+${newId().toLowerCase()}@example.test`);
    const password = params.password as string;
    const values: Record<string, unknown> = { email, password };
    if (account === 'pending' || account === 'verified' || account === 'deleted') {
      Object.assign(values, await register(email, password, params.intents));
    }
    if (account === 'verified' || account === 'deleted') {
      const verified = (
        await api('POST', '/auth/verify-account', { body: { email, otp: values.otp, purpose: 'account_verify' } })
      ).data;
      Object.assign(values, { accessToken: verified.accessToken, refreshToken: verified.refreshToken });
    }
    if (refreshed) {
      const rotated = (await api('POST', '/auth/refresh', { body: { refreshToken: values.refreshToken } })).data;
      Object.assign(values, {
        usedRefreshToken: values.refreshToken,
        accessToken: rotated.accessToken,
        refreshToken: rotated.refreshToken,
      });
    }
    if (account === 'provisioned') Object.assign(values, await provision(email));
    if (account === 'deleted')
      await api('DELETE', '/auth/account', { body: { password }, token: String(values.accessToken) });
    if (googleIdToken) values.idToken = (await api('POST', '/dev/google/id-token', { body: { email } })).data.idToken;
    if (payment) {
      const spec = Object.fromEntries(Object.entries(payment).map(([key, value]) => [key, substitute(value, params)]));
      Object.assign(values, await makePayment(String(values.userId), spec as { purpose: string; stage: string }));
    }
    if (conversation) Object.assign(values, await conversationWith(String(values.userId), String(values.accessToken)));
    if (assetStage) Object.assign(values, await asset(assetStage, String(values.accessToken)));
    if (recipient) values.recipientId = await anotherUser();
    // Injected by the verifier as the X-Platform-Service-Key (a provider-state injected value).
    if (serviceKey) values.serviceKey = deps.config.serviceApiKey;
    if (event) {
      // payment.completed and payment.refunded are about a payment; the account events are about the user.
      const key = event === 'payment.completed' || event === 'payment.refunded' ? 'paymentId' : 'userId';
      await until(
        `${event} is in the outbox`,
        async () => (values.event = await publishedEvent(event, key, String(values[key]))) !== undefined,
      );
    }
    return values;
  }

  return {
    changeProviderState: async (call) => {
      if (!deps.config.devMode) throw notFound('Provider states exist only in development mode.');
      return raw(JSON.stringify(await applyStates(call.body, loadStateDefinitions('ol'), setUp)), 'application/json');
    },
  };
}
