import test from 'ava';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { pino } from 'pino';
import { callUnary, closeGrpcClients, createGrpcClient } from '../../server/platform/grpc/client.ts';
import { GrpcCallError, invalidArgument } from '../../server/platform/grpc/errors.ts';
import { serviceDefinition, serviceNames } from '../../server/platform/grpc/proto.ts';
import { createGrpcServer } from '../../server/platform/grpc/server.ts';
import type { GrpcServerHandle } from '../../server/platform/grpc/server.ts';

const require = createRequire(import.meta.url);
const serviceKey = 'test-service-key';
const secretNumber = '12345678901';
const logLines: string[] = [];
const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });

// A trivial IdentityService: enough behaviour to exercise each status path of the factory.
const identityImplementation = {
  async VerifyIdentity(request: { identification_number: string; first_name: string }) {
    if (!/^\d{11}$/.test(request.identification_number)) {
      throw invalidArgument('identification_number must be 11 digits');
    }
    if (request.first_name === 'crash') throw new Error('simulated bug with private detail');
    return { verified: true, provider: 'in-test', provider_reference: 'ref-1', verified_at: '2026-01-01T00:00:00Z' };
  },
  async ProvisionAccount(request: { email: string; intents: string[] }) {
    return { user_id: `user-for-${request.email}-${request.intents.join('+')}`, is_new: true };
  },
  async FindAccounts() {
    return { accounts: [] };
  },
};

let server: GrpcServerHandle;

test.before(async () => {
  server = await createGrpcServer({
    host: '127.0.0.1',
    port: 0,
    serviceKey,
    logger,
    services: [{ definition: serviceDefinition(serviceNames.identity), implementation: identityImplementation }],
  });
});

test.after.always(async () => {
  closeGrpcClients();
  await server?.stop();
});

async function rejection(promise: Promise<unknown>): Promise<GrpcCallError> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(error instanceof GrpcCallError)) throw new Error(`expected a GrpcCallError, got ${String(error)}`);
  return error;
}

const validVerify = {
  user_id: 'u1',
  type: 'nin',
  identification_number: secretNumber,
  first_name: 'Ada',
  last_name: 'Obi',
  date_of_birth: '1990-01-31',
};

test('a call without the service key is UNAUTHENTICATED', async (t) => {
  const Client = grpc.makeGenericClientConstructor(serviceDefinition(serviceNames.identity), 'IdentityService');
  const client = new Client(server.address, grpc.credentials.createInsecure());
  t.teardown(() => client.close());
  const error = await new Promise<grpc.ServiceError>((resolve, reject) => {
    (client as unknown as Record<string, Function>)['VerifyIdentity']!(validVerify, (err: grpc.ServiceError | null) =>
      err ? resolve(err) : reject(new Error('call succeeded without a key')),
    );
  });
  t.is(error.code, grpc.status.UNAUTHENTICATED);
  t.regex(error.details, /missing x-platform-service-key/);
});

test('a call with a wrong service key is UNAUTHENTICATED', async (t) => {
  const error = await rejection(callUnary(server.address, 'wrong-key', 'IdentityService.VerifyIdentity', validVerify));
  t.is(error.code, grpc.status.UNAUTHENTICATED);
  t.regex(error.details, /invalid service key/);
});

test('a call with the service key gets the handler response with snake_case fields', async (t) => {
  const response = await callUnary(server.address, serviceKey, 'orchestrator.v1.IdentityService.ProvisionAccount', {
    email: 'a@example.test',
    intents: ['cap', 'lms'],
  });
  t.deepEqual(response, { user_id: 'user-for-a@example.test-cap+lms', is_new: true });
});

test('createGrpcClient exposes each RPC of the service as a function', async (t) => {
  const identity = createGrpcClient(serviceNames.identity, server.address, serviceKey);
  const response = await identity['VerifyIdentity']!(validVerify);
  t.is(response.verified, true);
  t.is(response.provider_reference, 'ref-1');
});

test('a GrpcError thrown by a handler reaches the caller with its status and message', async (t) => {
  const error = await rejection(
    callUnary(server.address, serviceKey, 'IdentityService.VerifyIdentity', {
      ...validVerify,
      identification_number: '12',
    }),
  );
  t.is(error.code, grpc.status.INVALID_ARGUMENT);
  t.is(error.details, 'identification_number must be 11 digits');
});

test('any other handler error is INTERNAL with a generic message, is logged, and the server keeps serving', async (t) => {
  const error = await rejection(
    callUnary(server.address, serviceKey, 'IdentityService.VerifyIdentity', { ...validVerify, first_name: 'crash' }),
  );
  t.is(error.code, grpc.status.INTERNAL);
  t.is(error.details, 'internal error');
  t.true(logLines.some((line) => line.includes('simulated bug with private detail')));
  const again = await callUnary(server.address, serviceKey, 'IdentityService.VerifyIdentity', validVerify);
  t.is(again['verified'], true);
});

test('each call is logged with method, status and duration but without the request payload', async (t) => {
  await callUnary(server.address, serviceKey, 'IdentityService.VerifyIdentity', validVerify);
  const callLines = logLines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'grpc call');
  t.true(
    callLines.some(
      (entry) =>
        entry.grpcMethod === '/orchestrator.v1.IdentityService/VerifyIdentity' &&
        entry.grpcCode === 'OK' &&
        typeof entry.ms === 'number',
    ),
  );
  t.false(logLines.some((line) => line.includes(secretNumber)));
});

test('reflection lists the served services without a service key', async (t) => {
  const reflectionProto = path.join(
    path.dirname(require.resolve('@grpc/reflection/package.json')),
    'build/proto/grpc/reflection/v1/reflection.proto',
  );
  const loaded = grpc.loadPackageDefinition(protoLoader.loadSync(reflectionProto, { keepCase: true })) as any;
  const client = new loaded.grpc.reflection.v1.ServerReflection(server.address, grpc.credentials.createInsecure());
  t.teardown(() => client.close());

  const ask = (request: object) =>
    new Promise<any>((resolve, reject) => {
      const stream = client.ServerReflectionInfo();
      stream.once('data', (response: unknown) => {
        resolve(response);
        stream.end();
      });
      stream.once('error', reject);
      stream.write(request);
    });

  const listed = await ask({ list_services: '' });
  const names = listed.list_services_response.service.map((service: { name: string }) => service.name);
  t.true(names.includes('orchestrator.v1.IdentityService'));
  t.true(names.includes('grpc.health.v1.Health'));

  const file = await ask({ file_containing_symbol: 'orchestrator.v1.IdentityService' });
  t.falsy(file.error_response);
  t.true(file.file_descriptor_response.file_descriptor_proto.length > 0);
});

test('health Check answers SERVING for the server and for each served service', async (t) => {
  const loaded = grpc.loadPackageDefinition(
    protoLoader.loadSync(healthProtoPath, { keepCase: true, enums: String }),
  ) as any;
  const client = new loaded.grpc.health.v1.Health(server.address, grpc.credentials.createInsecure());
  t.teardown(() => client.close());
  const check = (service: string) =>
    new Promise<{ status: string }>((resolve, reject) =>
      client.Check({ service }, (err: Error | null, response: { status: string }) =>
        err ? reject(err) : resolve(response),
      ),
    );
  t.is((await check('')).status, 'SERVING');
  t.is((await check(serviceNames.identity)).status, 'SERVING');
});

test('binding a port that is already in use rejects with a clear message', async (t) => {
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => blocker.close());
  const port = (blocker.address() as net.AddressInfo).port;
  const error = await t.throwsAsync(createGrpcServer({ host: '127.0.0.1', port, serviceKey, logger, services: [] }));
  t.is(error?.name, 'PortInUseError'); // capctl serve reports it as one line
  t.regex(error?.message ?? '', new RegExp(`gRPC port ${port} \\(grpc\\) is already in use on 127.0.0.1`));
});

test('a service implementation missing an RPC is refused at start-up', async (t) => {
  await t.throwsAsync(
    createGrpcServer({
      host: '127.0.0.1',
      port: 0,
      serviceKey,
      logger,
      services: [
        {
          definition: serviceDefinition(serviceNames.identity),
          implementation: { VerifyIdentity: identityImplementation.VerifyIdentity },
        },
      ],
    }),
    { message: /ProvisionAccount: no handler given/ },
  );
});

test('after stop() the address no longer answers (UNAVAILABLE)', async (t) => {
  const own = await createGrpcServer({
    host: '127.0.0.1',
    port: 0,
    serviceKey,
    logger,
    services: [{ definition: serviceDefinition(serviceNames.identity), implementation: identityImplementation }],
  });
  await callUnary(own.address, serviceKey, 'IdentityService.ProvisionAccount', { email: 'b@example.test' });
  await own.stop();
  const error = await rejection(
    callUnary(own.address, serviceKey, 'IdentityService.ProvisionAccount', { email: 'b@example.test' }),
  );
  t.is(error.code, grpc.status.UNAVAILABLE);
});

// capctl grpc call, run in a child process the way a user runs it (exit codes included).
// cli/main.ts is composed elsewhere, so the child builds a program with just this command.
async function capctlGrpc(args: string[], env: Record<string, string> = {}) {
  const commandUrl = pathToFileURL(path.resolve('cli/commands/grpc.ts')).href;
  const outputUrl = pathToFileURL(path.resolve('cli/output.ts')).href;
  const script = `
    import { Command, CommanderError } from 'commander';
    import { registerGrpc } from ${JSON.stringify(commandUrl)};
    import { UsageError, exitCodes } from ${JSON.stringify(outputUrl)};
    const program = new Command('capctl').exitOverride();
    registerGrpc(program);
    try {
      await program.parseAsync(${JSON.stringify(args)}, { from: 'user' });
    } catch (err) {
      if (err instanceof UsageError) { process.stderr.write('capctl: ' + err.message + '\\n'); process.exitCode = exitCodes.usage; }
      else if (err instanceof CommanderError) process.exitCode = exitCodes.usage;
      else throw err;
    }`;
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import=tsx', '--input-type=module', '-e', script],
      {
        env: { ...process.env, CAPCTL_GRPC_ADDRESS: server.address, ORCHESTRATOR_SERVICE_API_KEY: serviceKey, ...env },
        timeout: 60_000,
      },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
    );
  });
}

test('capctl grpc call prints the response and exits 0', async (t) => {
  const result = await capctlGrpc([
    'grpc',
    'call',
    'IdentityService.ProvisionAccount',
    '--json',
    '--data',
    '{"email":"c@example.test","intents":["cap"]}',
  ]);
  t.is(result.code, 0, result.stderr);
  t.deepEqual(JSON.parse(result.stdout), { user_id: 'user-for-c@example.test-cap', is_new: true });
});

test('capctl grpc call exits 1 and names the status when the RPC fails', async (t) => {
  const result = await capctlGrpc(['grpc', 'call', 'IdentityService.VerifyIdentity', '--service-key', 'nope']);
  t.is(result.code, 1);
  t.regex(result.stderr, /UNAUTHENTICATED: invalid service key/);
});

test('capctl grpc call exits 2 on bad JSON, unknown fields and unknown methods', async (t) => {
  const badJson = await capctlGrpc(['grpc', 'call', 'IdentityService.VerifyIdentity', '--data', '{nope']);
  t.is(badJson.code, 2);
  t.regex(badJson.stderr, /not valid JSON/);
  const badField = await capctlGrpc(['grpc', 'call', 'IdentityService.VerifyIdentity', '--data', '{"userId":"u"}']);
  t.is(badField.code, 2);
  t.regex(badField.stderr, /no field userId/);
  const badMethod = await capctlGrpc(['grpc', 'call', 'IdentityService.Nope']);
  t.is(badMethod.code, 2);
  t.regex(badMethod.stderr, /not a known method/);
});

test('capctl grpc call exits 3 when nothing listens at the address', async (t) => {
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const result = await capctlGrpc(['grpc', 'call', 'IdentityService.VerifyIdentity', '--address', `127.0.0.1:${port}`]);
  t.is(result.code, 3);
  t.regex(result.stderr, /UNAVAILABLE/);
});
