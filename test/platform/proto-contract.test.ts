import test from 'ava';
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  platformPackageDefinition,
  protoRoot,
  serviceDefinition,
  serviceNames,
} from '../../server/platform/grpc/proto.ts';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

// The per-platform packages that @bufbuild/buf lists as optional dependencies.
const bufPlatformPackages: Record<string, string> = {
  'linux x64': '@bufbuild/buf-linux-x64',
  'linux arm64': '@bufbuild/buf-linux-aarch64',
  'linux arm': '@bufbuild/buf-linux-armv7',
  'darwin x64': '@bufbuild/buf-darwin-x64',
  'darwin arm64': '@bufbuild/buf-darwin-arm64',
  'win32 x64': '@bufbuild/buf-win32-x64',
  'win32 arm64': '@bufbuild/buf-win32-arm64',
};

/**
 * The buf binary from node_modules. npm 11 skips @bufbuild/buf's postinstall, so we take the binary
 * from the platform package directly, falling back to the package's node launcher.
 */
function bufCommand(): { file: string; prefix: string[] } {
  const platformPackage = bufPlatformPackages[`${process.platform} ${process.arch}`];
  if (platformPackage) {
    const binary = process.platform === 'win32' ? 'bin/buf.exe' : 'bin/buf';
    try {
      return { file: require.resolve(`${platformPackage}/${binary}`), prefix: [] };
    } catch {
      // not installed for this platform; try the launcher below
    }
  }
  return { file: process.execPath, prefix: [require.resolve('@bufbuild/buf/bin/buf')] };
}

interface BufResult {
  exitCode: number;
  output: string;
}

async function buf(args: string[], cwd: string): Promise<BufResult> {
  const { file, prefix } = bufCommand();
  try {
    const { stdout, stderr } = await run(file, [...prefix, ...args], { cwd, timeout: 60_000 });
    return { exitCode: 0, output: stdout + stderr };
  } catch (err) {
    const failure = err as { code?: number | string; stdout?: string; stderr?: string };
    if (typeof failure.code !== 'number') throw err;
    return { exitCode: failure.code, output: `${failure.stdout ?? ''}${failure.stderr ?? ''}` };
  }
}

const baseline = path.join(protoRoot, 'baseline.binpb');

test('protos pass buf lint (STANDARD)', async (t) => {
  const result = await buf(['lint'], protoRoot);
  t.is(result.exitCode, 0, result.output);
});

test('protos have no breaking change against the committed baseline', async (t) => {
  const result = await buf(['breaking', '--against', baseline], protoRoot);
  t.is(result.exitCode, 0, result.output);
});

test('the breaking-change check fails when a field is renamed and renumbered', async (t) => {
  const copy = await mkdtemp(path.join(tmpdir(), 'proto-breaking-'));
  t.teardown(() => rm(copy, { recursive: true, force: true }));
  await cp(protoRoot, copy, { recursive: true });
  const identity = path.join(copy, 'orchestrator/v1/identity.proto');
  const source = await readFile(identity, 'utf8');
  const changed = source.replace('bool is_new = 2;', 'bool created = 3;');
  t.not(changed, source, 'the edit must apply to the copied proto');
  await writeFile(identity, changed);

  const result = await buf(['breaking', '--against', baseline], copy);
  t.not(result.exitCode, 0);
  t.regex(result.output, /ProvisionAccountResponse/);
});

function fieldsOf(messageName: string): Record<string, string> {
  const message = platformPackageDefinition()[messageName] as {
    type: { field: { name: string; type: string; label: string }[] };
  };
  return Object.fromEntries(
    message.type.field.map((field) => [
      field.name,
      `${field.label === 'LABEL_REPEATED' ? 'repeated ' : ''}${field.type.replace('TYPE_', '').toLowerCase()}`,
    ]),
  );
}

test('IdentityService messages carry exactly the spec fields and types (plus outcome and FindAccounts, added after them)', (t) => {
  t.deepEqual(Object.keys(serviceDefinition(serviceNames.identity)), [
    'VerifyIdentity',
    'ProvisionAccount',
    'FindAccounts',
  ]);
  t.deepEqual(fieldsOf('orchestrator.v1.VerifyIdentityRequest'), {
    user_id: 'string',
    type: 'string',
    identification_number: 'string',
    first_name: 'string',
    last_name: 'string',
    date_of_birth: 'string',
  });
  t.deepEqual(fieldsOf('orchestrator.v1.VerifyIdentityResponse'), {
    verified: 'bool',
    provider: 'string',
    provider_reference: 'string',
    verified_at: 'string',
    // Not in the spec's table: an addition, so that CAP can tell a mismatch from an unknown number.
    outcome: 'string',
  });
  t.deepEqual(fieldsOf('orchestrator.v1.ProvisionAccountRequest'), {
    email: 'string',
    intents: 'repeated string',
    correlation_id: 'string',
    display_name: 'string',
    notify_kind: 'string',
    centre_name: 'string',
    role: 'string',
  });
  t.deepEqual(fieldsOf('orchestrator.v1.ProvisionAccountResponse'), { user_id: 'string', is_new: 'bool' });
  // Not in the spec: CAP reads accounts by address for its platform admins (POST /admin/accounts/lookup).
  t.deepEqual(fieldsOf('orchestrator.v1.FindAccountsRequest'), { emails: 'repeated string' });
  t.deepEqual(fieldsOf('orchestrator.v1.FindAccountsResponse'), { accounts: 'repeated message' });
  t.deepEqual(fieldsOf('orchestrator.v1.FoundAccount'), {
    user_id: 'string',
    email: 'string',
    status: 'string',
    must_change_password: 'bool',
  });
});

test('PaymentsService declares InitiatePayment and RefundPayment, RecommendationsService one RPC', (t) => {
  t.deepEqual(Object.keys(serviceDefinition(serviceNames.payments)), ['InitiatePayment', 'RefundPayment']);
  t.deepEqual(Object.keys(fieldsOf('orchestrator.v1.RefundPaymentRequest')), ['payment_id', 'reason']);
  t.deepEqual(Object.keys(serviceDefinition(serviceNames.recommendations)), ['RecommendCourses']);
  t.like(fieldsOf('orchestrator.v1.InitiatePaymentRequest'), { amount_minor: 'int64', purpose: 'enum' });
  t.deepEqual(Object.keys(fieldsOf('orchestrator.v1.InitiatePaymentResponse')), [
    'payment_id',
    'reference',
    'checkout_url',
  ]);
});
