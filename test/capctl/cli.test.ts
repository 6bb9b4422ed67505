import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { runCapctl } from '../helpers/cli.ts';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { latestMail, signUp, testPassword, uniqueEmail } from '../helpers/users.ts';

// capctl as a shell user meets it, against a real platform: --version, shell completion, passwords
// on stdin instead of the command line, and `events tail` with --forward-to.

let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(async () => {
  await platform?.stop();
});

/** capctl with its own profile directory. */
function capctl(t: ExecutionContext, args: string[], input?: string) {
  const configDir = mkdtempSync(path.join(tmpdir(), 'capctl-cli-'));
  t.teardown(() => rmSync(configDir, { recursive: true, force: true }));
  return runCapctl(args, { CAPCTL_CONFIG_DIR: configDir, CAPCTL_BASE_URL: platform.urls.gateway! }, input);
}

test('capctl --version prints the version of package.json', async (t) => {
  const result = await capctl(t, ['--version']);
  t.is(result.code, 0);
  t.is(result.stdout, '0.1.0\n');
});

test('the bash completion completes commands, subcommands, options and bundled scenario names', async (t) => {
  const script = await capctl(t, ['completion', 'bash']);
  t.is(script.code, 0, script.stderr);
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'capctl-completion-')), 'capctl.bash');
  writeFileSync(file, script.stdout);
  t.teardown(() => rmSync(path.dirname(file), { recursive: true, force: true }));
  const complete = (...words: string[]) => {
    const shell = `source ${file}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _capctl; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const result = spawnSync('bash', ['-c', shell], { encoding: 'utf8' });
    return result.stdout.split('\n').filter(Boolean);
  };
  t.deepEqual(complete('capctl', 'ev'), ['events']);
  t.deepEqual(complete('capctl', 'events', ''), ['tail', '--help', '-h']);
  t.deepEqual(complete('capctl', 'admin', 'centres', 'a'), ['approve']);
  t.deepEqual(complete('capctl', 'run', '--continue'), ['--continue-on-error']);
  t.true(complete('capctl', 'run', 'cand').includes('candidate-signup'));
  t.true(complete('capctl', 'login', '--pass').includes('--password-stdin'));

  for (const shell of ['zsh', 'fish']) {
    const other = await capctl(t, ['completion', shell]);
    t.is(other.code, 0);
    t.regex(other.stdout, /events/);
  }
  t.regex(
    (await capctl(t, ['completion', 'fish'])).stdout,
    /complete -c capctl -n 'test \(__capctl_path\) = \\'login\\'' -l password-stdin/,
  );
  t.is((await capctl(t, ['completion', 'tcsh'])).code, 2);
});

test('register and login take the password from stdin with --password-stdin; with --password too it is a usage error', async (t) => {
  const email = uniqueEmail('stdin');
  const registered = await capctl(t, ['register', '--email', email, '--password-stdin', '--json'], `${testPassword}\n`);
  t.is(registered.code, 0, registered.stderr);
  // The code is mailed by the event bus, a moment after the registration's reply.
  const { otp } = await latestMail(platform, email);
  t.truthy(otp);
  const verified = await call('POST', platform.url('/v1/ol/auth/verify-account'), {
    json: { email, otp, purpose: 'account_verify' },
  });
  t.is(verified.status, 200);

  const login = await capctl(
    t,
    ['login', '--email', email, '--password-stdin', '--json'],
    `${testPassword}\r\nignored second line\n`,
  );
  t.is(login.code, 0, login.stderr);
  t.is(JSON.parse(login.stdout).user.email, email);

  const wrong = await capctl(t, ['login', '--email', email, '--password-stdin'], 'Not-the-password-1\n');
  t.is(wrong.code, 1);
  const both = await capctl(
    t,
    ['login', '--email', email, '--password', testPassword, '--password-stdin'],
    `${testPassword}\n`,
  );
  t.is(both.code, 2);
  t.regex(both.stderr, /--password and --password-stdin exclude each other/);
  const empty = await capctl(t, ['login', '--email', email, '--password-stdin'], '');
  t.is(empty.code, 2);
});

test('events tail prints events as the platform publishes them and --forward-to posts each to a URL', async (t) => {
  const received: Array<{ headers: IncomingMessage['headers']; body: any }> = [];
  const hook = createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(text) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  t.teardown(() => hook.close());
  const hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}/hook`;

  const before = await signUp(platform); // published before the tail starts: not shown
  const child = spawn(
    process.execPath,
    [
      path.resolve('bin/capctl'),
      'events',
      'tail',
      '--base-url',
      platform.urls.gateway!,
      '--forward-to',
      hookUrl,
      '--type',
      'user.created',
      '--json',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const until = async (what: string, check: () => boolean) => {
    const deadline = Date.now() + 20_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${stdout}${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  await until('the tail to start', () => /tailing the events of ol, cap, lms/.test(stderr));
  const user = await signUp(platform);
  await until('the event line', () => stdout.includes(user.userId));
  child.kill('SIGINT');
  t.is(await exited, 0, stderr);

  const lines = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  t.false(lines.some((event) => JSON.stringify(event).includes(before.userId)));
  const printed = lines.find((event) => event.data.userId === user.userId);
  t.like(printed, {
    type: 'user.created',
    source: 'ol',
    data: { userId: user.userId, email: user.email },
    forwarded: { status: 204 },
  });
  t.true(lines.every((event) => event.type === 'user.created'));
  const delivered = received.find((r) => r.body.id === printed.id);
  t.truthy(delivered);
  t.deepEqual(delivered!.body, {
    id: printed.id,
    type: 'user.created',
    occurredAt: printed.occurredAt,
    source: 'ol',
    data: printed.data,
  });
  t.is(delivered!.headers['x-cap-event-type'], 'user.created');
});
