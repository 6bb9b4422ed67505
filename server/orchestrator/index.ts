import { createGrpcServer, type GrpcServerHandle } from '../platform/grpc/server.ts';
import { composeModules } from '../platform/modules.ts';
import type { Service, ServiceDeps } from '../platform/service.ts';
import { accountRoutes } from './accounts/routes.ts';
import { createAccounts } from './accounts/service.ts';
import { olProviderStateRoutes } from './dev/provider-states.ts';
import { discoveryRoutes } from './discovery/routes.ts';
import { createGoogleVerifier, googleJwksUrl } from './google/verify.ts';
import { googleSandboxRoutes } from './google/routes.ts';
import { createGoogleSandbox } from './google/sandbox.ts';
import { identityService } from './grpc.ts';
import { createIdentityProvider } from './identity/provider.ts';
import { createIdentityVerification } from './identity/service.ts';
import { notificationRoutes } from './notifications/routes.ts';
import { paymentsService } from './payments/grpc.ts';
import { paymentRoutes, webhookSignatureAuth } from './payments/routes.ts';
import { createSandboxPayments } from './payments/sandbox/service.ts';
import { sandboxRoutes } from './payments/sandbox/routes.ts';
import { createPayments } from './payments/service.ts';
import { referenceRoutes } from './reference/routes.ts';
import { createReferenceData, createSandboxBankResolver } from './reference/service.ts';
import { createNotifications } from './notifications/service.ts';
import { devEventsHandler } from '../platform/events/dev-events.ts';
import { createStorageBackend } from './storage/backends.ts';
import { serviceKeyAuth, storageRoutes } from './storage/routes.ts';
import { createStorage } from './storage/service.ts';
import { conversationRoutes } from './conversations/routes.ts';
import { createConversations } from './conversations/service.ts';
import { createAccessTokens } from './tokens/access.ts';
import { createOlBearerAuth } from './tokens/bearer.ts';
import { createSigningKeys, ensureSigningKey } from './tokens/keys.ts';
import { tokenRoutes } from './tokens/routes.ts';

/** The Orchestrator (OL): accounts, tokens, notifications, payments, storage, conversations and the internal gRPC contracts. */
export async function createOrchestrator(deps: ServiceDeps): Promise<Service> {
  // Looked up when a notification is delivered, long after `accounts` exists.
  const notifications = createNotifications({
    ...deps,
    userEmail: async (userId) => (await accounts.userContact(userId))?.email ?? null,
  });
  const googleSandbox = createGoogleSandbox(deps);
  await ensureSigningKey(deps.sequelize);
  const signingKeys = createSigningKeys(deps.sequelize, deps.config);
  const tokens = createAccessTokens(signingKeys, deps.config);
  const accounts = createAccounts({
    ...deps,
    tokens,
    requestMail: notifications.requestMail,
    sendMailNow: notifications.sendMailNow,
    verifyGoogleIdToken: createGoogleVerifier(deps.config, googleJwksUrl(deps)),
  });
  const identity = createIdentityVerification({
    ...deps,
    provider: createIdentityProvider(deps.config),
    userStatus: accounts.userStatus,
  });
  // The payment provider adapters, by PAYMENT_PROVIDER; the sandbox also serves its hosted checkout.
  const sandbox = createSandboxPayments(deps);
  const paymentProvider = { sandbox: sandbox.provider }[deps.config.paymentProvider as 'sandbox'];
  const payments = createPayments({ ...deps, provider: paymentProvider, payerAccount: accounts.userContact });
  // The bank registry adapters, by BANK_RESOLVER.
  const bankResolver = { sandbox: createSandboxBankResolver(deps.logger.child({ component: 'bank-registry' })) }[
    deps.config.bankResolver as 'sandbox'
  ];
  const reference = createReferenceData(bankResolver);
  const storage = createStorage({ ...deps, backend: await createStorageBackend(deps.config) });
  const conversations = createConversations({
    ...deps,
    userContacts: accounts.userContacts,
    notify: notifications.notify,
    resolveAssets: storage.resolve,
  });
  let grpcServer: GrpcServerHandle | undefined;
  let pruning: NodeJS.Timeout | undefined;
  // The background work, started in this order and stopped in reverse (and what started is stopped
  // when a later start fails).
  const background = composeModules([
    accounts.sessions,
    { stop: () => notifications.stop() },
    { start: async () => sandbox.start(), stop: () => sandbox.stop() },
    {
      async start() {
        grpcServer = await createGrpcServer({
          host: deps.config.host,
          port: deps.config.grpcPort,
          serviceKey: deps.config.serviceApiKey,
          logger: deps.logger,
          database: deps.database,
          label: 'grpc',
          services: [identityService({ identity, accounts }), paymentsService({ payments })],
        });
        return { grpc: grpcServer.address };
      },
      stop: async () => grpcServer?.stop(),
    },
    {
      async start() {
        pruning = setInterval(
          () =>
            void accounts
              .pruneThrottle()
              .catch((err) => deps.logger.warn({ err }, 'pruning the sign-in throttle failed')),
          3600_000,
        ).unref();
      },
      stop: async () => clearInterval(pruning),
    },
  ]);
  return {
    name: 'ol',
    handlers: {
      ...accountRoutes(accounts),
      ...tokenRoutes(signingKeys),
      ...discoveryRoutes(deps.peers),
      ...notificationRoutes(notifications),
      ...googleSandboxRoutes(googleSandbox),
      ...paymentRoutes(payments, paymentProvider),
      ...storageRoutes(storage),
      ...conversationRoutes(conversations),
      ...sandboxRoutes(sandbox),
      ...referenceRoutes(reference),
      ...olProviderStateRoutes(deps),
      listDevEvents: devEventsHandler(deps.sequelize, 'ol', deps.config.devMode),
    },
    security: {
      bearerAuth: createOlBearerAuth(tokens, accounts.sessionLive),
      paymentWebhookSignature: webhookSignatureAuth(paymentProvider),
      serviceKey: serviceKeyAuth(deps.config.serviceApiKey),
    },
    start: background.start,
    stop: background.stop,
    settled: background.settled,
  };
}
