import anyTest, { type TestFn } from 'ava';
import { pino } from 'pino';
import { UsageError } from '../../cli/output.ts';
import { parseScenario } from '../../cli/scenarios/parse.ts';
import { runScenarios, type RunReport } from '../../cli/scenarios/runner.ts';
import { invalidArgument } from '../../server/platform/grpc/errors.ts';
import { serviceDefinition, serviceNames } from '../../server/platform/grpc/proto.ts';
import { createGrpcServer, type GrpcServerHandle } from '../../server/platform/grpc/server.ts';
import { startFakePlatform, type FakePlatform } from './scenario-fake-platform.ts';

const test = anyTest as TestFn<{ platform: FakePlatform; grpc: GrpcServerHandle }>;
const serviceKey = 'scenario-test-key';

// A stand-in IdentityService: enough to see the runner's gRPC steps pass values and statuses through.
const identity = {
  async ProvisionAccount(request: { email: string }) {
    if (!request.email.includes('@')) throw invalidArgument('email is not an address');
    return { user_id: `user-${request.email}`, is_new: true };
  },
  async VerifyIdentity() {
    return { verified: true, provider: 'test', provider_reference: 'ref', verified_at: '2026-01-01T00:00:00Z' };
  },
  async FindAccounts() {
    return { accounts: [] };
  },
};

test.before(async (t) => {
  t.context.platform = await startFakePlatform();
  t.context.grpc = await createGrpcServer({
    host: '127.0.0.1',
    port: 0,
    serviceKey,
    logger: pino({ level: 'silent' }),
    services: [{ definition: serviceDefinition(serviceNames.identity), implementation: identity }],
  });
});
test.after.always(async (t) => {
  await t.context.grpc?.stop();
  await t.context.platform?.close();
});

function run(t: { context: { platform: FakePlatform; grpc: GrpcServerHandle } }, steps: string, key = serviceKey) {
  const scenario = parseScenario(`name: grpc\nsteps:\n${steps}`, 'grpc.yaml');
  return runScenarios([scenario], {
    baseUrl: t.context.platform.url,
    grpc: { address: t.context.grpc.address, serviceKey: key },
  });
}

const only = (report: RunReport) => report.scenarios[0]!.steps;

test('a gRPC step sends its request with the service key and exposes the response for captures', async (t) => {
  const report = await run(
    t,
    `  - id: provision
    grpc: { method: IdentityService.ProvisionAccount, request: { email: a@example.test, intents: [cap] } }
    expect: { body: { is_new: true } }
    capture: { userId: body.user_id }
  - id: echo
    http: { method: POST, path: /v1/cap/echo, body: { id: "\${steps.provision.userId}" } }
    expect: { body: { data.body.id: user-a@example.test } }
`,
  );
  t.is(report.exitCode, 0, JSON.stringify(only(report), null, 2));
});

test('a gRPC error is a status and an error code that expectations can name', async (t) => {
  const report = await run(
    t,
    `  - id: bad
    grpc: { method: orchestrator.v1.IdentityService.ProvisionAccount, request: { email: nope } }
    expect: { status: 3, code: INVALID_ARGUMENT, body: { error.message: email is not an address } }
`,
  );
  t.is(report.exitCode, 0, JSON.stringify(only(report), null, 2));
});

test('without an expected status a gRPC step must answer OK', async (t) => {
  const report = await run(t, '  - { id: key, grpc: { method: IdentityService.VerifyIdentity } }\n', 'wrong-key');
  t.is(report.exitCode, 1);
  t.deepEqual(only(report)[0]!.mismatches, [{ target: 'status', expected: 'status 0 (OK)', actual: 16 }]);
  t.is(only(report)[0]!.request?.headers['x-platform-service-key'], '[redacted]');
});

test('an unknown gRPC method is a file error before anything runs', async (t) => {
  await t.throwsAsync(run(t, '  - { id: x, grpc: { method: IdentityService.Nope } }\n'), {
    instanceOf: UsageError,
    message: /^grpc\.yaml:3:30: gRPC method "IdentityService\.Nope" is not a known method/,
  });
});
