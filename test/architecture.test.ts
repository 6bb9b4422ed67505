import test from 'ava';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  brokenRules,
  importCycles,
  importGraph,
  importsOf,
  moduleFolders,
  services,
  type ImportEdge,
} from './helpers/imports.ts';

// The design's rules, read from the import statements of the real files (CONTRIBUTING, "Where code
// goes"): services apart, the kernel below them, a module reached through its face, the CLI through the
// operator faces. And: every error code the code can answer is in its service's error table.

const root = path.resolve('.');
const sourceFolders = ['server', 'cli', 'bench', 'fixtures'];

/** Imports that break a rule on purpose, each with why. */
const allowedImports: Record<string, string> = {
  // capctl builds its commands from the role table without loading CAP (capctl --help loads no package
  // but commander); the people module's face loads Sequelize and the whole module.
  'server/cap/operator/index.ts -> server/cap/people/platform-roles/roles.ts':
    'the platform role table, data with no imports, for capctl --help',
  // A seed uploads the project's SCORM packages: zipping them needs yazl, not the catalogue.
  'server/lms/operator.ts -> server/lms/catalogue/scorm/sample.ts': "the platform's own package, zipped for capctl",
  'server/lms/operator.ts -> server/lms/catalogue/scorm/package.ts': 'zipping a fixture package for capctl',
};

const arrowOf = (broken: string) => broken.slice(broken.indexOf(': ') + 2);

test('no import breaks the rules: services apart, the kernel imports no service, modules through their face, the CLI through the operator faces', async (t) => {
  const edges = await importGraph(root, sourceFolders);
  t.true(edges.length > 1000, `only ${edges.length} imports read: is the root right?`);
  const modules = await moduleFolders(root);
  t.true(modules.includes('server/cap/people') && modules.includes('server/cap/applications'), modules.join(', '));
  t.deepEqual(
    brokenRules(edges, modules).filter((broken) => !Object.hasOwn(allowedImports, arrowOf(broken))),
    [],
  );
});

test('every allowed exception to the import rules is still an import that breaks one', async (t) => {
  const broken = brokenRules(await importGraph(root, sourceFolders), await moduleFolders(root)).map(arrowOf);
  for (const arrow of Object.keys(allowedImports))
    t.true(broken.includes(arrow), `${arrow} is no longer needed: remove it from allowedImports`);
});

// capctl's commands: a command file (X.ts) loads its work (X.action.ts) when it runs and takes its
// option types from it with `import type`; the action never imports its command file, and what both
// need is in a third file (cli/options.ts, cli/scenarios/files.ts). No file of cli/commands imports
// one that imports it back, directly or through others.
test('no import cycle between the files of cli/commands (dynamic and type-only imports count)', async (t) => {
  const edges = await importGraph(root, ['cli']);
  t.true(
    edges.some((edge) => edge.from === 'cli/commands/run.ts' && edge.to === 'cli/commands/run.action.ts'),
    'the reader sees the lazy import of an action',
  );
  t.deepEqual(importCycles(edges, 'cli/commands'), []);
});

test('the cycle finder names one loop per group of files that import each other, and nothing else', (t) => {
  const edges: ImportEdge[] = [
    { from: 'cli/commands/keys.ts', to: 'cli/commands/keys.action.ts' },
    { from: 'cli/commands/keys.action.ts', to: 'cli/commands/keys.ts' },
    { from: 'cli/commands/a.ts', to: 'cli/commands/b.ts' },
    { from: 'cli/commands/b.ts', to: 'cli/commands/c.ts' },
    { from: 'cli/commands/c.ts', to: 'cli/commands/a.ts' },
    { from: 'cli/commands/c.ts', to: 'cli/commands/keys.ts' },
    { from: 'cli/commands/run.ts', to: 'cli/commands/run.action.ts' },
    { from: 'cli/commands/demo.action.ts', to: 'cli/commands/run.action.ts' },
    { from: 'cli/commands/run.action.ts', to: 'cli/options.ts' },
    { from: 'cli/options.ts', to: 'cli/commands/run.action.ts' },
  ];
  t.deepEqual(importCycles(edges, 'cli/commands'), [
    'cli/commands/a.ts -> cli/commands/b.ts -> cli/commands/c.ts -> cli/commands/a.ts',
    'cli/commands/keys.action.ts -> cli/commands/keys.ts -> cli/commands/keys.action.ts',
  ]);
});

test('server/cap has at most 8 entries at its top level', async (t) => {
  const entries = await readdir(path.join(root, 'server', 'cap'));
  t.true(entries.length <= 8, entries.join(', '));
});

test('the import reader sees static, type-only, side-effect, re-exported, multi-line and dynamic imports, and no package', (t) => {
  const text = [
    "import a from './a.ts';",
    "import type { B } from '../b.ts';",
    "import './c.ts';",
    "export { d } from './d/index.ts';",
    'import {\n  e,\n  f,\n} from "./ef.ts";',
    "const g = await import('../../g.ts');",
    "import sequelize from 'sequelize';",
  ].join('\n');
  t.deepEqual(
    importsOf('server/x/y.ts', text).map((edge) => edge.to),
    ['server/x/a.ts', 'server/b.ts', 'server/x/c.ts', 'server/x/d/index.ts', 'server/x/ef.ts', 'g.ts'],
  );
});

// A test of the test: a small project on disk with one import of each forbidden kind, and allowed
// ones beside them; the checker reports exactly the forbidden ones.
test('the checker reports each kind of forbidden import in a project made to break them', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'architecture-'));
  const files: Record<string, string> = {
    'server/cap/people/index.ts': "export { createUsers } from './service.ts';",
    'server/cap/people/service.ts': "import { newId } from '../../platform/ids.ts';\nexport const createUsers = newId;",
    'server/cap/centres/index.ts':
      "import { createUsers } from '../people/index.ts';\nimport { staff } from './staff/service.ts';",
    'server/cap/centres/staff/service.ts':
      "import { createUsers } from '../../people/service.ts';\nexport const staff = 1;",
    'server/cap/index.ts': "import { createCentres } from './centres/index.ts';",
    'server/cap/operator/index.ts': "export const grant = () => import('../people/index.ts');",
    'server/lms/index.ts': "import { createCap } from '../cap/index.ts';",
    'server/orchestrator/operator.ts': "export const rotate = () => import('./tokens/keys.ts');",
    'server/orchestrator/tokens/keys.ts': 'export const rotate = 1;',
    'server/platform/ids.ts': "import type { Lms } from '../lms/index.ts';\nexport const newId = 1;",
    'server/contracts/client.ts': "import { newId } from '../platform/ids.ts';",
    'cli/commands/keys.ts':
      "import { rotate } from '../../server/orchestrator/tokens/keys.ts';\nimport { grant } from '../../server/cap/operator/index.ts';",
    'cli/commands/keys.action.ts':
      "const { rotate } = await import('../../server/orchestrator/operator.ts');\nimport { config } from '../../server/platform/ids.ts';",
  };
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.join(dir, path.dirname(file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  const modules = await moduleFolders(dir);
  t.deepEqual(modules, ['server/cap/centres', 'server/cap/people']);
  t.deepEqual(brokenRules(await importGraph(dir, ['server', 'cli']), modules).sort(), [
    "a module's inner file imported from outside it: server/cap/centres/staff/service.ts -> server/cap/people/service.ts",
    'a service imports another service: server/lms/index.ts -> server/cap/index.ts',
    'the CLI imports a service outside its operator face: cli/commands/keys.ts -> server/orchestrator/tokens/keys.ts',
    'the kernel imports a service: server/platform/ids.ts -> server/lms/index.ts',
  ]);
});

// Error codes: the codes a source file can answer with, as the code writes them: the AppError
// constructor and the helpers of platform/http/errors.ts with a literal code, a `code: '...'` of a
// refusal table, the codes a lifecycle's refusals map to (`{ no_move, wrong_mover, guard_failed }`,
// server/platform/lifecycle.ts), and the `{ unavailable, failed }` codes of a call to a peer.
const codePattern =
  /(?:new AppError\(\s*\d+\s*,|\b(?:badRequest|unauthorized|forbidden|conflict|unprocessable|tooManyRequests|serviceUnavailable|badGateway)\(|\b(?:code|unavailable|failed|no_move|wrong_mover|guard_failed):)\s*['"]([a-z0-9_]+(?:\.[a-z0-9_]+)+)['"]/g;

function codesIn(text: string): string[] {
  return [...text.matchAll(codePattern)].map((match) => match[1]!);
}

/** The codes of a document's error tables: rows `| \`code\` | status | meaning |`, in the root file or an area file. */
function tableCodes(text: string): Set<string> {
  return new Set([...text.matchAll(/^\s*\|\s*`([a-z0-9_.]+)`\s*\|\s*\d{3}\s*\|/gm)].map((match) => match[1]!));
}

const documents: Record<(typeof services)[number], string> = { cap: 'cap', orchestrator: 'ol', lms: 'lms' };

/** Codes thrown but answered by no HTTP operation, each with why. */
const unanswered: Partial<Record<(typeof services)[number] | 'all', Record<string, string>>> = {
  all: {
    'internal.response_contract':
      'a bug of ours, caught by the reply check of development mode; clients see it as a 500 like internal.error',
  },
  orchestrator: {
    'payment.payer_unknown': 'InitiatePayment (gRPC) only: payments/grpc.ts turns it into NOT_FOUND',
    'payment.payer_inactive': 'InitiatePayment (gRPC) only: FAILED_PRECONDITION',
    'payment.idempotency_key_reused': 'InitiatePayment (gRPC) only: ALREADY_EXISTS',
    'payment.currency_unsupported': 'InitiatePayment (gRPC) only: INVALID_ARGUMENT',
    'payment.provider_unavailable': 'InitiatePayment and RefundPayment (gRPC) only: UNAVAILABLE',
    'payment.not_found': 'RefundPayment (gRPC) only: NOT_FOUND',
    'payment.not_refundable': 'RefundPayment (gRPC) only: FAILED_PRECONDITION',
    'payment.transition_not_allowed':
      "the payment lifecycle's refusal; every caller checks the status before it moves a payment",
    'payment.guard_failed':
      "the payment lifecycle's refusal of a provider's outcome: logged and refused, never answered",
  },
};

async function serviceDocumentText(service: (typeof services)[number]): Promise<string> {
  const name = documents[service];
  const areas = (await readdir(path.join(root, 'openapi', name)).catch(() => [] as string[])).filter((file) =>
    file.endsWith('.yaml'),
  );
  const texts = await Promise.all(
    [`${name}.yaml`, ...areas.map((file) => `${name}/${file}`)].map((file) =>
      readFile(path.join(root, 'openapi', file), 'utf8'),
    ),
  );
  return texts.join('\n');
}

/** The files a service's code runs: its folder and every kernel and contracts file it reaches through imports. */
function filesOf(service: string, edges: ImportEdge[]): Set<string> {
  const reached = new Set(
    edges.flatMap((edge) => [edge.from, edge.to]).filter((file) => file.startsWith(`server/${service}/`)),
  );
  const queue = [...reached];
  while (queue.length) {
    const file = queue.pop()!;
    for (const edge of edges) {
      if (edge.from !== file || reached.has(edge.to) || !edge.to.startsWith('server/')) continue;
      reached.add(edge.to);
      queue.push(edge.to);
    }
  }
  return reached;
}

for (const service of services) {
  test(`every error code ${service} can answer is in the error table of openapi/${documents[service]}.yaml`, async (t) => {
    const table = tableCodes(await serviceDocumentText(service));
    const exempt = { ...unanswered.all, ...unanswered[service] };
    const files = [...filesOf(service, await importGraph(root, ['server']))];
    t.true(files.length > 20);
    const missing: string[] = [];
    let thrown = 0;
    for (const file of files) {
      for (const code of codesIn(await readFile(path.join(root, file), 'utf8'))) {
        thrown++;
        if (!table.has(code) && !Object.hasOwn(exempt, code)) missing.push(`${code} (${file})`);
      }
    }
    t.true(thrown > 20, `only ${thrown} codes found`);
    t.deepEqual([...new Set(missing)], []);
  });
}

test('every code exempted from the error tables is still thrown and still in no table', async (t) => {
  const edges = await importGraph(root, ['server']);
  for (const service of services) {
    const table = tableCodes(await serviceDocumentText(service));
    const thrown = new Set<string>();
    for (const file of filesOf(service, edges))
      for (const code of codesIn(await readFile(path.join(root, file), 'utf8'))) thrown.add(code);
    for (const code of Object.keys({ ...unanswered[service] })) {
      t.true(thrown.has(code), `${service} no longer throws ${code}`);
      t.false(table.has(code), `${code} is in ${service}'s table now: remove its exemption`);
    }
  }
});

test('the error code reader finds codes in each form the code writes them, and the table reader reads table rows only', (t) => {
  const source = [
    "throw new AppError(409, 'a.one', 'm');",
    "throw conflict('a.two', 'm');",
    "if (x) throw forbidden(\n  'a.three',\n  'm');",
    "return { code: 'a.four', reason: 'r' };",
    "upstreamFailure(err, { unavailable: 'a.five', failed: 'a.six' }, 'What');",
    "logger.info('a.not_a_code'); const event = 'user.created';",
  ].join('\n');
  t.deepEqual(codesIn(source), ['a.one', 'a.two', 'a.three', 'a.four', 'a.five', 'a.six']);
  const doc =
    "    | Error code | Status | Meaning |\n    |---|---|---|\n    | `a.one` | 409 | Taken. |\n    description: '`a.two`: in a sentence'\n";
  t.deepEqual([...tableCodes(doc)], ['a.one']);
});

// Statuses (DESIGN §10): a status column is written only by its lifecycle's writer
// (server/platform/lifecycle.ts). The writes a service's code can make itself: a model's `create`,
// `bulkCreate`, `upsert`, `update` or `save` with a `status` in its values, an SQL `UPDATE ... SET ...
// status =` or `INSERT INTO ... (... status`, or an assignment `x.status = ...`.
const statusWritePattern =
  /\.(?:create|bulkCreate|upsert|update|save)\(\s*\[?\s*\{[^)]*?\bstatus\s*:|UPDATE\s+[\w".]+\s+SET\s[^`;]*?\bstatus\s*=|INSERT\s+INTO\s+[\w".]+\s*\([^)]*\bstatus\b|^\s*[\w.]+\.status\s*=[^=]/gm;

function statusWritesIn(text: string): number[] {
  return [...text.matchAll(statusWritePattern)].map(
    (match) => text.slice(0, match.index).split('\n').length + (match[0].startsWith('\n') ? 1 : 0),
  );
}

/** Files that write a status themselves, each with why. */
const ownStatusWriters: Record<string, string> = {
  'server/cap/applications/service.ts':
    "the application lifecycle's own writer (`move`, a stage and a status at once; applications/lifecycle.ts is its table), its creation and the provider states' placement",
  'server/orchestrator/payments/sandbox/page.ts': "the sandbox checkout page's script: a DOM attribute, no column",
};

test('no status is written outside the lifecycle writers: every other write goes through server/platform/lifecycle.ts', async (t) => {
  const found: string[] = [];
  const entries = await readdir(path.join(root, 'server'), { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
    if (file.includes('/migrations/') || Object.hasOwn(ownStatusWriters, file)) continue;
    for (const line of statusWritesIn(await readFile(path.join(root, file), 'utf8'))) found.push(`${file}:${line}`);
  }
  t.deepEqual(found, []);
});

test('the status write reader finds each form of write, on one line or several, and no read', (t) => {
  const text = [
    "await row.update({ status: 'active' }, { transaction });", // 1
    'await Model.create(', // 2
    "  { id, name, status: 'pending' },", // 3
    '  { transaction },', // 4
    ');', // 5
    "await Model.bulkCreate([{ userId, status: 'deactivated' }], { updateOnDuplicate: ['status'] });", // 6
    "await sequelize.query(`UPDATE cap.things SET paid_at = $2, status = 'completed' WHERE id = $1`);", // 7
    'await sequelize.query(`INSERT INTO cap.things (id, status) VALUES ($1, $2)`);', // 8
    "  thing.status = 'done';", // 9
    "const open = await Model.findAll({ where: { status: 'open' } });", // 10
    "if (thing.status === 'done') return;", // 11
    "where.add('x.status = ?', query.status);", // 12
    "await writer.move(transaction, row, 'approve', { by: 'admin', changes: { decidedAt } });", // 13
  ].join('\n');
  t.deepEqual(statusWritesIn(text), [1, 2, 6, 7, 8, 9]);
});
