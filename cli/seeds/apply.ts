/**
 * Brings a platform to what the seed files say, through its public and admin APIs (so seeding is itself
 * a test of them). A run is a plan, then its steps. The plan is made from one reading of the platform,
 * before anything is written: every change it lists (with the fields an update changes) is what a step
 * then does, and every problem the platform can show in the files (a trade moving sector, a sector no
 * file or platform holds) stops it before the first write. A dry run is the plan alone. The steps of
 * one phase run several at a time; a run stopped halfway is completed by the next, which plans only
 * what is still missing.
 */
import { firstSignIn, grantPlatformAdmin, registerVerified, signIn, type SignedIn } from '../dev-accounts.ts';
import { UsageError } from '../output.ts';
import { CommandFailed, expiresWithin, type Api } from '../session.ts';
import type { SeedCentre, SeedPerson, SeedSet, SeedTrade } from './load.ts';
import { planLms } from './lms.ts';
import { openPlatformDb, type Account, type PlatformDb } from './platform-db.ts';
import type { Progress } from './progress.ts';

export const seedKinds = ['people', 'catalogue', 'centres', 'assessors', 'lms'] as const;
export type SeedKind = (typeof seedKinds)[number];
export type Outcome = 'created' | 'updated' | 'unchanged';

export interface SeedOptions {
  dryRun: boolean;
  only: ReadonlySet<SeedKind>;
  /**
   * The platform's database, for what no API does: granting the platform_admin role and inviting the
   * first LMS staff, and on a platform with no platform admin yet, which accounts exist.
   */
  databaseUrl?: string;
  /** Who writes the catalogue and centres: a signed-in platform admin (a valid token, renewed as needed), else the first seeded admin. */
  adminToken?: () => Promise<string>;
  /** Let a trade move to another sector, or its NOS be replaced while applications use the trade. */
  allowIdentityChanges?: boolean;
  /** How many steps of a phase run at once (default 8). */
  concurrency?: number;
  progress?: Progress;
}

/** One record the plan changes (or leaves), and for an update the fields it changes. */
export interface Change {
  record: string;
  outcome: Outcome;
  label: string;
  diff?: Record<string, { from: unknown; to: unknown }>;
}

/** Some changes and the writes that make them; `run` is absent when nothing changes. */
export interface Step {
  changes: Change[];
  run?: () => Promise<void>;
  /** A name other steps can wait for (`trade:<slug>`). */
  name?: string;
  /** The steps (by name) this one waits for besides its phase's; a name no step of this run has counts as done. */
  after?: string[];
  /** Takes the next free turn before other steps (as every step of a phase that goes `first`). */
  first?: boolean;
  /** Whom it signs in as besides the acting admin: someone without an account registers before its turn. */
  signsInAs?: SeedPerson;
}

/**
 * The steps of one kind of record, run once the phases they need are done (`after`; a phase this run
 * does not have counts as done). Phases that need nothing of each other run at the same time.
 */
export interface Phase {
  name: string;
  after: string[];
  steps: Step[];
  /**
   * Its steps take the next free turn before those of other phases: a long chain of requests (a
   * centre, an assessor, a course) started last would end the run last.
   */
  first?: boolean;
}

export interface SeedReport {
  dryRun: boolean;
  /** Counts per kind of record: sectors, trades, nosDocuments, centres, centreStaff, platformAdmins, candidates, assessors, retainedRequests, lms*. */
  counts: Record<string, Record<Outcome, number>>;
  /** Every creation and update, updates with their field-level diff. */
  changes: Change[];
}

/** The state of a seeding: the platform as read before the plan, and the ids and sessions the steps make. */
export interface Seeding {
  api: Api;
  seeds: SeedSet;
  options: SeedOptions;
  accounts: Map<string, Account>;
  /** Ids by seed key (sector and trade slugs, registration numbers), read or created. */
  ids: { sectors: Map<string, string>; trades: Map<string, string>; centres: Map<string, string> };
  /** Signs a seeded person in without ever trying a wrong password (see `session`). */
  session(person: SeedPerson): Promise<SignedIn>;
  problems: string[];
}

export async function applySeeds(api: Api, seeds: SeedSet, options: SeedOptions): Promise<SeedReport> {
  const emails = [
    ...seeds.platformAdmins,
    ...seeds.candidates,
    ...seeds.assessors,
    ...seeds.lmsAdmins,
    ...seeds.centres.map((c) => c.superAdmin),
  ].map((p) => p.email.toLowerCase());
  const db = options.databaseUrl ? openPlatformDb(options.databaseUrl) : undefined;
  try {
    const seeding = newSeeding(api, seeds, options);
    const phases = await plan(seeding, emails, db);
    if (seeding.problems.length) throw new UsageError(seeding.problems.join('\n'));
    const steps = phases.flatMap((p) => p.steps);
    const changes = steps.flatMap((s) => s.changes);
    if (!options.dryRun) {
      // Progress counts the records written; an early registration is part of its record's step.
      options.progress?.start(steps.filter((s) => s.run && s.changes.length).length);
      await runPhases(phases, options.concurrency ?? 8, (step) => {
        if (step.changes.length) options.progress?.done(step.changes[0]!.record);
      });
      options.progress?.end();
    }
    const counts: SeedReport['counts'] = {};
    for (const change of changes)
      (counts[change.record] ??= { created: 0, updated: 0, unchanged: 0 })[change.outcome]++;
    return { dryRun: options.dryRun, counts, changes: changes.filter((c) => c.outcome !== 'unchanged') };
  } finally {
    await db?.close();
  }
}

function newSeeding(api: Api, seeds: SeedSet, options: SeedOptions): Seeding {
  const sessions = new Map<string, Promise<SignedIn>>();
  const accounts = new Map<string, Account>();
  return {
    api,
    seeds,
    options,
    accounts,
    ids: { sectors: new Map(), trades: new Map(), centres: new Map() },
    problems: [],
    /**
     * A person's session, one per address: a missing (or never verified) account is registered and
     * verified, an account provisioned with a mailed password signs in with it and sets the seed's, and
     * any other signs in with the seed's password, which can only fail when the account has another one.
     */
    session(person) {
      const email = person.email.toLowerCase();
      let session = sessions.get(email);
      if (!session) {
        session = (async () => {
          if (!person.password) throw new CommandFailed(`${person.email}: signing in needs a password in the seed`);
          const account = accounts.get(email);
          if (!account || account.status === 'pending_verification')
            return registerVerified(api, person.email, person.password, !account);
          if (account.mustChangePassword) return firstSignIn(api, person.email, person.password);
          return signedIn(person.email, person.password);
        })();
        sessions.set(email, session);
      }
      // A long run outlives access tokens: an expiring one is replaced by a new sign-in (the account and its password are known by now).
      return session.then((current) => {
        if (!expiresWithin(current.accessToken, 120)) return current;
        const renewed = signedIn(person.email, person.password!);
        sessions.set(email, renewed);
        return renewed;
      });
    },
  };

  async function signedIn(email: string, password: string): Promise<SignedIn> {
    const signedIn = await signIn(api, email, password);
    if (!signedIn)
      throw new CommandFailed(`${email} already has an account with another password: change the seed or the account`);
    return signedIn;
  }
}

/** The phases of the plan, each after the ones it needs. */
async function plan(seeding: Seeding, emails: string[], db: PlatformDb | undefined): Promise<Phase[]> {
  const { seeds, options } = seeding;
  const phases: Phase[] = [];
  const cap =
    (options.only.has('catalogue') && seeds.sectors.length > 0) ||
    (options.only.has('centres') && seeds.centres.length > 0) ||
    (options.only.has('assessors') && seeds.assessors.length > 0);
  const admin = cap || emails.length ? await actingAdmin(seeding, db) : undefined;
  for (const [email, account] of admin?.canRead
    ? await lookupAccounts(seeding.api, admin, emails)
    : await (db?.accounts(emails) ?? new Map<string, Account>()))
    seeding.accounts.set(email, account);
  if (options.only.has('people')) phases.push(...planPeople(seeding));
  // The LMS is read while CAP is; its problems are listed after CAP's.
  const lms =
    options.only.has('lms') && (seeds.lmsAdmins.length || seeds.lmsCourses.length)
      ? { ...seeding, problems: [] as string[] }
      : undefined;
  const lmsPhases = lms ? planLms(lms) : Promise.resolve([]);
  lmsPhases.catch(() => {}); // awaited below, after CAP's part
  if (cap) {
    const platform = await readCap(seeding, admin!);
    // The CAP part is written as the acting admin, whom the platformAdmins phase makes on a new platform.
    if (options.only.has('catalogue')) {
      const [sectors, trades] = planCatalogue(seeding, admin!, platform);
      phases.push({ name: 'sectors', after: ['platformAdmins'], steps: sectors });
      phases.push({ name: 'trades', after: ['sectors'], steps: trades });
    }
    if (options.only.has('centres'))
      phases.push({
        name: 'centres',
        after: ['platformAdmins'],
        steps: planCentres(seeding, admin!, platform),
        first: true,
      });
    if (options.only.has('assessors')) {
      // An assessor is made while the centres are; only their retained requests wait for them.
      const assessors = await planAssessors(seeding, admin!, platform);
      phases.push({
        name: 'assessors',
        after: ['platformAdmins', 'sectors'],
        steps: assessors.map((a) => a.assessor),
        first: true,
      });
      phases.push({
        name: 'retainedRequests',
        after: ['assessors', 'centres'],
        steps: assessors.flatMap((a) => a.retained ?? []),
        first: true,
      });
    }
  }
  // LMS courses and level offerings name CAP trades, levels and units: their phases come after the trades.
  phases.push(...(await lmsPhases));
  seeding.problems.push(...(lms?.problems ?? []));
  phases.push({ name: 'registrations', after: [], steps: earlyRegistrations(seeding, phases) });
  return phases;
}

/**
 * The people later steps sign in as who have no account yet, registered from the start in free turns
 * (their step then finds them signed in): a registration needs nothing the other steps make, and the
 * platform has turns to spare while the first admin is made.
 */
function earlyRegistrations(seeding: Seeding, phases: Phase[]): Step[] {
  const people = new Map<string, SeedPerson>();
  for (const step of phases.flatMap((p) => p.steps)) {
    const person = step.run && step.signsInAs;
    if (person?.password && !seeding.accounts.has(person.email.toLowerCase()))
      people.set(person.email.toLowerCase(), person);
  }
  return [...people.values()].map((person) => ({
    changes: [],
    run: async () => void (await seeding.session(person)),
  }));
}

/**
 * Runs the phases, each once those it needs are done (and each step once the steps it names are), at
 * most `limit` steps at a time in all. The first failure stops new steps; the steps under way finish
 * before it is thrown.
 */
async function runPhases(phases: Phase[], limit: number, done: (step: Step) => void): Promise<void> {
  let running = 0;
  let failure: { error: unknown } | undefined;
  const waiting: Array<{ first: boolean; go: () => void }> = [];
  const slot = async (first: boolean) => {
    while (running >= limit) await new Promise<void>((go) => waiting.push({ first, go }));
    running++;
  };
  const free = () => {
    running--;
    const next = waiting.findIndex((w) => w.first);
    waiting.splice(Math.max(next, 0), 1)[0]?.go();
  };
  // The end of each named step, for the steps that wait for it: a failed or skipped step fails them too.
  const ends = new Map<string, { promise: Promise<void>; end: (ok: boolean) => void }>();
  for (const step of phases.flatMap((p) => p.steps)) {
    if (!step.name) continue;
    let end!: (ok: boolean) => void;
    const promise = new Promise<void>((resolve, reject) => (end = (ok) => (ok ? resolve() : reject(failure?.error))));
    promise.catch(() => {});
    if (!step.run) end(true);
    ends.set(step.name, { promise, end });
  }
  const finished = new Map<string, Promise<void>>();
  for (const phase of phases) {
    const before = phase.after.flatMap((name) => finished.get(name) ?? []);
    const steps = phase.steps.filter((step) => step.run);
    const ended = (step: Step, ok: boolean) => step.name && ends.get(step.name)!.end(ok);
    finished.set(
      phase.name,
      Promise.all(before).then(
        () =>
          Promise.all(
            steps.map(async (step) => {
              try {
                await Promise.all((step.after ?? []).map((name) => ends.get(name)?.promise));
                await slot(Boolean(phase.first || step.first));
                try {
                  if (failure) throw failure.error;
                  await step.run!();
                } finally {
                  free();
                }
                ended(step, true);
                done(step);
              } catch (error) {
                failure ??= { error };
                ended(step, false);
                throw error;
              }
            }),
          ).then(() => undefined),
        (error) => {
          for (const step of steps) ended(step, false);
          throw error;
        },
      ),
    );
  }
  await Promise.allSettled(finished.values());
  if (failure) throw failure.error;
}

/** Which of the addresses have accounts, read by the acting admin through CAP (POST /admin/accounts/lookup), 500 at a time. */
async function lookupAccounts(api: Api, admin: Admin, emails: string[]): Promise<Map<string, Account>> {
  const unique = [...new Set(emails)];
  const chunks = Array.from({ length: Math.ceil(unique.length / 500) }, (_, i) => unique.slice(i * 500, i * 500 + 500));
  const found = await inParallel(chunks, 4, (chunk) => admin.call('POST', '/admin/accounts/lookup', { emails: chunk }));
  return new Map(
    (
      found.flat() as Array<{
        email: string;
        userId: string;
        status: string;
        mustChangePassword: boolean;
        platformRoles: string[];
      }>
    ).map((a) => [
      a.email,
      {
        userId: a.userId,
        status: a.status,
        mustChangePassword: a.mustChangePassword,
        platformAdmin: a.platformRoles.includes('platform_admin'),
      },
    ]),
  );
}

type AdminCall = (method: string, urlPath: string, body?: unknown) => Promise<any>;
interface Admin {
  call: AdminCall;
  /** Whether the admin existed when the plan was made (else the CAP part is planned on an empty platform). */
  canRead: boolean;
  token(): Promise<string>;
}

/**
 * The platform admin the seeder acts as: `--profile`'s, else the first seeded one. Whether that one is
 * already a platform admin is the one thing read in the platform's database (as `capctl admin create`
 * does): a platform with no admin yet is the one case the API cannot seed, and the first admin is made
 * by this run (its people phase). With an admin, everything else is read through the API.
 */
async function actingAdmin(seeding: Seeding, db: PlatformDb | undefined): Promise<Admin> {
  const { api, options, seeds } = seeding;
  const first = seeds.platformAdmins.find((a) => a.password);
  const profile = options.adminToken;
  if (!profile && !db)
    throw new CommandFailed(
      "no platform admin to seed as: sign one in (capctl login) and pass --profile, or seed where capctl serve runs (or with --database-url) so the seeds' first platform admin can be made",
    );
  const firstAccount =
    !profile && first ? (await db!.accounts([first.email.toLowerCase()])).get(first.email.toLowerCase()) : undefined;
  // Its session signs in (never registers) once it is known to exist.
  if (firstAccount) seeding.accounts.set(first!.email.toLowerCase(), firstAccount);
  const seeded = Boolean(firstAccount?.platformAdmin);
  if (!profile && !seeded && !(first && options.only.has('people'))) {
    throw new CommandFailed(
      'no platform admin to seed as: sign one in (capctl login) and pass --profile, or seed people with a platform admin that has a password',
    );
  }
  if (!profile && !seeded) {
    // The admin is made by this run: only an empty platform can be planned without one.
    const [sectors, centres] = await Promise.all([
      api.call<unknown[]>('GET', '/v1/cap/sectors'),
      api.call<unknown[]>('GET', '/v1/cap/centres?limit=1'),
    ]);
    if (sectors.length || centres.length)
      throw new CommandFailed(
        `the platform has a catalogue or centres but ${first!.email} is not a platform admin yet: seed people first (--only people), or pass --profile`,
      );
  }
  const token = async () => (profile ? profile() : (await seeding.session(first!)).accessToken);
  return {
    canRead: Boolean(profile) || seeded,
    token,
    call: async (method, urlPath, body) => api.call<any>(method, `/v1/cap${urlPath}`, { token: await token(), body }),
  };
}

interface CapState {
  sectors: Map<string, any>;
  trades: Map<string, any>;
  /** The active NOS of seeded trades that have one, in the import shape, by slug. */
  nos: Map<string, any>;
  centres: Map<string, any>;
  /** The staff of seeded centres that exist (email to status), by registration number. */
  staff: Map<string, Map<string, string>>;
  /** How many applications name each seeded trade that has a NOS, by slug. */
  applications: Map<string, number>;
}

/** What the CAP part of the plan reads: the admin lists, the active NOS of seeded trades, the staff of seeded centres. */
async function readCap(seeding: Seeding, admin: Admin): Promise<CapState> {
  const state: CapState = {
    sectors: new Map(),
    trades: new Map(),
    nos: new Map(),
    centres: new Map(),
    staff: new Map(),
    applications: new Map(),
  };
  if (!admin.canRead) return state;
  const { seeds, api } = seeding;
  const list = async (urlPath: string) => {
    const rows: any[] = [];
    let cursor: string | null = null;
    do {
      const page = await api.send('GET', `/v1/cap${urlPath}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
        token: await admin.token(),
      });
      const body = page.body as { data: any[]; meta?: { pagination?: { nextCursor: string | null } } };
      rows.push(...body.data);
      cursor = body.meta?.pagination?.nextCursor ?? null;
    } while (cursor);
    return rows;
  };
  const [sectors, trades, centres] = await Promise.all([
    list('/admin/sectors'),
    list('/admin/trades'),
    list('/admin/centres'),
  ]);
  for (const s of sectors) state.sectors.set(s.slug, s);
  for (const t of trades) state.trades.set(t.slug, t);
  for (const c of centres) state.centres.set(c.registrationNo, c);
  const seededNos = seeds.sectors
    .flatMap((s) => s.trades)
    .filter((t) => t.nos && state.trades.get(t.slug)?.activeNosDocument);
  const known = seeds.centres.filter((c) => state.centres.has(c.registrationNo));
  const details = [
    ...seededNos.map((trade) => async () => {
      const detail = await admin.call('GET', `/admin/trades/${state.trades.get(trade.slug).id}`);
      state.nos.set(trade.slug, detail.nos);
      state.applications.set(trade.slug, detail.applicationCount);
    }),
    ...known.map((centre) => async () => {
      const detail = await admin.call('GET', `/admin/centres/${state.centres.get(centre.registrationNo).id}`);
      state.staff.set(
        centre.registrationNo,
        new Map(
          (detail.staff as Array<{ email: string; status: string }>).map((s) => [s.email.toLowerCase(), s.status]),
        ),
      );
    }),
  ];
  await inParallel(details, 8, (read) => read());
  for (const [slug, s] of state.sectors) seeding.ids.sectors.set(slug, s.id);
  for (const [slug, t] of state.trades) seeding.ids.trades.set(slug, t.id);
  for (const [no, c] of state.centres) seeding.ids.centres.set(no, c.id);
  return state;
}

/** The fields of `wanted` whose value differs from `current` (missing ones count as null), as from/to. */
export function diffOf(current: Record<string, unknown>, wanted: Record<string, unknown>): Change['diff'] {
  const changed = Object.entries(wanted).filter(
    ([key, value]) => JSON.stringify(current[key] ?? null) !== JSON.stringify(value ?? null),
  );
  return changed.length
    ? Object.fromEntries(changed.map(([key, to]) => [key, { from: current[key] ?? null, to: to ?? null }]))
    : undefined;
}

const patchOf = (diff: Change['diff']) =>
  Object.fromEntries(Object.entries(diff ?? {}).map(([key, { to }]) => [key, to]));

/** Platform admins (registered when missing, granted the role when without it) and candidates (registered when missing). */
function planPeople(seeding: Seeding): Phase[] {
  const { seeds, options, accounts } = seeding;
  const steps: Step[] = [];
  const candidates: Step[] = [];
  for (const admin of seeds.platformAdmins) {
    const account = accounts.get(admin.email.toLowerCase());
    if (!admin.password && !account)
      seeding.problems.push(
        `${seeding.seeds.where(admin, 'email')}: ${admin.email} has no account: give a password to make one`,
      );
    if (account?.platformAdmin) {
      steps.push({ changes: [{ record: 'platformAdmins', outcome: 'unchanged', label: admin.email }] });
      continue;
    }
    if (!options.databaseUrl)
      seeding.problems.push(
        `${seeding.seeds.where(admin, 'email')}: making ${admin.email} a platform admin needs the platform's database (no API grants a platform role): seed where capctl serve runs, or pass --database-url`,
      );
    const change: Change = account
      ? {
          record: 'platformAdmins',
          outcome: 'updated',
          label: admin.email,
          diff: { roles: { from: [], to: ['platform_admin'] } },
        }
      : { record: 'platformAdmins', outcome: 'created', label: admin.email };
    steps.push({
      changes: [change],
      run: async () => {
        const userId = account?.userId ?? seeding.session(admin).then((signedIn) => signedIn.userId);
        await grantPlatformAdmin(options.databaseUrl!, userId, admin.email);
      },
    });
  }
  for (const candidate of seeds.candidates) {
    const account = accounts.get(candidate.email.toLowerCase());
    if (account && account.status !== 'pending_verification') {
      candidates.push({ changes: [{ record: 'candidates', outcome: 'unchanged', label: candidate.email }] });
      continue;
    }
    if (!candidate.password)
      seeding.problems.push(
        `${seeding.seeds.where(candidate, 'email')}: ${candidate.email} has no account: give a password to make one`,
      );
    candidates.push({
      changes: [{ record: 'candidates', outcome: 'created', label: candidate.email }],
      run: async () => void (await seeding.session(candidate)),
    });
  }
  return [
    { name: 'platformAdmins', after: [], steps, first: true },
    { name: 'candidates', after: [], steps: candidates },
  ];
}

/** Sectors, then trades with their NOS. A trade in another sector, or a NOS replaced under applications, is refused unless allowed. */
function planCatalogue(seeding: Seeding, admin: Admin, platform: CapState): [Step[], Step[]] {
  const { seeds, ids, options } = seeding;
  const sectors: Step[] = [];
  const trades: Step[] = [];
  for (const sector of seeds.sectors) {
    const wanted = { name: sector.name, description: sector.description ?? null };
    const current = platform.sectors.get(sector.slug);
    if (!current) {
      sectors.push({
        changes: [{ record: 'sectors', outcome: 'created', label: sector.slug }],
        run: async () =>
          void ids.sectors.set(
            sector.slug,
            (await admin.call('POST', '/admin/sectors', { slug: sector.slug, ...wanted })).id,
          ),
      });
    } else {
      const diff = diffOf(current, wanted);
      sectors.push({
        changes: [{ record: 'sectors', outcome: diff ? 'updated' : 'unchanged', label: sector.slug, diff }],
        run: diff && (() => admin.call('PATCH', `/admin/sectors/${current.id}`, patchOf(diff))),
      });
    }
    for (const trade of sector.trades)
      trades.push(planTrade(seeding, admin, platform, sector.slug, trade, options.allowIdentityChanges));
  }
  // The trades LMS courses wait for go first.
  const named = new Set(seeds.lmsCourses.flatMap((course) => (course.cap ? [`trade:${course.cap.trade}`] : [])));
  for (const trade of trades) trade.first = named.has(trade.name!);
  return [sectors, trades];
}

function planTrade(
  seeding: Seeding,
  admin: Admin,
  platform: CapState,
  sectorSlug: string,
  trade: SeedTrade,
  allow = false,
): Step {
  const { ids, seeds } = seeding;
  const wanted: Record<string, unknown> = {
    name: trade.name,
    description: trade.description ?? null,
    ...(trade.evidenceTypes ? { evidenceTypes: trade.evidenceTypes } : {}),
  };
  const found = platform.trades.get(trade.slug);
  const changes: Change[] = [];
  const writes: Array<() => Promise<unknown>> = [];
  if (!found) {
    changes.push({ record: 'trades', outcome: 'created', label: trade.slug });
    writes.push(async () =>
      ids.trades.set(
        trade.slug,
        (
          await admin.call('POST', '/admin/trades', {
            sectorId: ids.sectors.get(sectorSlug),
            slug: trade.slug,
            ...wanted,
          })
        ).id,
      ),
    );
  } else {
    const currentSector = [...platform.sectors.values()].find((s) => s.id === found.sectorId)?.slug ?? found.sectorId;
    const moves = currentSector !== sectorSlug;
    if (moves && !allow) {
      seeding.problems.push(
        `${seeds.where(trade, 'slug')}: the trade ${trade.slug} is in the sector ${currentSector} on the platform, not ${sectorSlug}: a different slug makes a new trade (--allow-identity-changes moves it)`,
      );
    }
    const diff = {
      ...diffOf(found, wanted),
      ...(moves ? { sector: { from: currentSector, to: sectorSlug } } : {}),
      ...(found.status === 'archived' ? { status: { from: 'archived', to: 'active' } } : {}),
    };
    const changed = Object.keys(diff).length > 0;
    changes.push({
      record: 'trades',
      outcome: changed ? 'updated' : 'unchanged',
      label: trade.slug,
      diff: changed ? diff : undefined,
    });
    const { sector: _sector, status, ...fields } = diff;
    if (Object.keys(fields).length || moves)
      writes.push(() =>
        admin.call('PATCH', `/admin/trades/${found.id}`, {
          ...patchOf(fields),
          ...(moves ? { sectorId: ids.sectors.get(sectorSlug) } : {}),
        }),
      );
    if (status) writes.push(() => admin.call('POST', `/admin/trades/${found.id}/restore`));
  }
  if (trade.nos) {
    const document = nosDocument(trade);
    const current = platform.nos.get(trade.slug);
    if (current && sameDocument(current, document)) {
      changes.push({ record: 'nosDocuments', outcome: 'unchanged', label: trade.slug });
    } else {
      if (current && platform.applications.get(trade.slug) && !allow) {
        seeding.problems.push(
          `${seeds.where(trade, 'nos')}: the NOS of ${trade.slug} differs from the platform's version ${current.version}, which applications use: it would be replaced (--allow-identity-changes imports it as the next version)`,
        );
      }
      const diff = current
        ? {
            nos: {
              from: `version ${current.version}: ${summary(current)}`,
              to: `version ${current.version + 1}: ${summary(document)}`,
            },
          }
        : undefined;
      changes.push({ record: 'nosDocuments', outcome: current ? 'updated' : 'created', label: trade.slug, diff });
      writes.push(() => admin.call('POST', `/admin/trades/${ids.trades.get(trade.slug)}/nos`, document));
    }
  }
  return {
    changes,
    name: `trade:${trade.slug}`,
    run: writes.length
      ? async () => {
          for (const write of writes) await write();
        }
      : undefined,
  };
}

const summary = (document: { title: string; levels: Array<{ units: unknown[] }> }) =>
  `${document.title}, ${document.levels.length} level(s), ${document.levels.reduce((n, l) => n + l.units.length, 0)} unit(s)`;

/** The seed's NOS in the import shape of POST /admin/trades/{id}/nos. */
function nosDocument(trade: SeedTrade) {
  return {
    title: trade.nos!.title,
    levels: trade.nos!.levels.map((level) => ({
      level: level.level,
      purpose: level.purpose,
      units: level.units.map(({ mandatory, learningOutcomes, ...unit }) => ({
        ...unit,
        isMandatory: mandatory ?? true,
        learningOutcomes,
      })),
    })),
  };
}

/** The active document says what the seed says (fields the seed leaves out are not compared). */
function sameDocument(current: any, wanted: ReturnType<typeof nosDocument>): boolean {
  const pick = (value: any, like: any): any => {
    if (Array.isArray(like))
      return Array.isArray(value) ? value.slice(0, like.length + 1).map((v, i) => pick(v, like[i] ?? like[0])) : value;
    if (like && typeof like === 'object')
      return value && typeof value === 'object'
        ? Object.fromEntries(Object.keys(like).map((k) => [k, pick(value[k], like[k])]))
        : value;
    return value;
  };
  return JSON.stringify(pick(current, wanted)) === JSON.stringify(wanted);
}

/**
 * Each centre is one step: its super admin's account (registered with the seed's password when new, so
 * they never need a mailed one), the centre, the super admin accepting it (they had an account, so it
 * is an invitation) and saving its details in their centre onboarding (where the web client's settings
 * read them), then the staff the super admin adds. Existing centres are not changed; their
 * missing staff are added, and an invitation a stopped run left is accepted.
 */
function planCentres(seeding: Seeding, admin: Admin, platform: CapState): Step[] {
  const { seeds, ids, api } = seeding;
  return seeds.centres.map((centre): Step => {
    const found = platform.centres.get(centre.registrationNo);
    const staff = platform.staff.get(centre.registrationNo) ?? new Map<string, string>();
    const missing = (centre.staff ?? []).filter((m) => !staff.has(m.email.toLowerCase()));
    const ownerEmail = centre.superAdmin.email.toLowerCase();
    const accept = Boolean(centre.superAdmin.password) && (!found || staff.get(ownerEmail) === 'pending');
    const changes: Change[] = [
      found && accept
        ? {
            record: 'centres',
            outcome: 'updated',
            label: centre.registrationNo,
            diff: { superAdmin: { from: 'pending', to: 'active' } },
          }
        : { record: 'centres', outcome: found ? 'unchanged' : 'created', label: centre.registrationNo },
    ];
    for (const member of centre.staff ?? [])
      changes.push({
        record: 'centreStaff',
        outcome: missing.includes(member) ? 'created' : 'unchanged',
        label: `${member.email} at ${centre.registrationNo}`,
      });
    if (found && (missing.length || accept) && !staff.has(ownerEmail)) {
      seeding.problems.push(
        `${seeds.where(centre, 'superAdmin', 'email')}: ${centre.superAdmin.email} is not on the staff of ${centre.registrationNo} on the platform, so cannot add its staff`,
      );
    }
    if (found && !missing.length && !accept) return { changes };
    return {
      changes,
      signsInAs: centre.superAdmin,
      run: async () => {
        const owner = centre.superAdmin.password ? await seeding.session(centre.superAdmin) : undefined;
        if (!found)
          ids.centres.set(centre.registrationNo, (await admin.call('POST', '/admin/centres', centreBody(centre))).id);
        const centreId = ids.centres.get(centre.registrationNo)!;
        const asOwner = (method: string, urlPath: string, body?: unknown) =>
          api.call<any>(method, `/v1/cap${urlPath}`, {
            token: owner!.accessToken,
            body,
            headers: urlPath.startsWith('/centre/') ? { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centreId } : {},
          });
        if (accept) {
          const invitation = (
            (await asOwner('GET', '/me/invitations')) as Array<{ id: string; organisationId: string }>
          ).find((i) => i.organisationId === centreId);
          if (invitation) await asOwner('POST', `/me/invitations/${invitation.id}/accept`);
        }
        // Where the web client reads a centre's details (its settings form): the super admin's centre onboarding.
        if (!found && owner) await asOwner('PATCH', '/onboarding/centre/save', onboardingOf(centre));
        for (const member of missing) await asOwner('POST', '/centre/staff', member);
      },
    };
  });
}

/** The centre's details in the centre onboarding draft's shape, as a centre that onboarded itself has them. */
function onboardingOf(centre: SeedCentre) {
  return {
    centre: {
      centreInformation: { name: centre.name, registrationNo: centre.registrationNo },
      ...(centre.address ? { centreResidentialAddress: centre.address } : {}),
    },
  };
}

function centreBody(centre: SeedCentre) {
  return {
    name: centre.name,
    registrationNo: centre.registrationNo,
    ...(centre.address ? { address: centre.address } : {}),
    superAdmin: { name: centre.superAdmin.name, email: centre.superAdmin.email },
  };
}

/**
 * An approved assessor, in their sectors, retained by their centres: the account, the completed
 * assessor onboarding, the admin's approval, the sectors, and for each centre a request the centre's
 * super admin approves. What is already so is left alone; an existing assessor is read signed in.
 */
async function planAssessors(
  seeding: Seeding,
  admin: Admin,
  platform: CapState,
): Promise<Array<{ assessor: Step; retained?: Step }>> {
  const { seeds, api, accounts, ids } = seeding;
  const seededSectors = new Set(seeds.sectors.map((s) => s.slug));
  const seededCentres = new Map(seeds.centres.map((c) => [c.registrationNo, c]));
  for (const assessor of seeds.assessors) {
    assessor.sectors.forEach((slug, i) => {
      if (!seededSectors.has(slug) && !platform.sectors.has(slug))
        seeding.problems.push(
          `${seeds.where(assessor, 'sectors', i)}: no seed file or the platform has the sector ${slug}`,
        );
    });
  }
  return inParallel(seeds.assessors, 8, async (seed) => {
    const as = async (method: string, urlPath: string, body?: unknown) =>
      api.call<any>(method, `/v1/cap${urlPath}`, {
        token: (await seeding.session(seed)).accessToken,
        body,
        headers: { 'X-CAP-PERSONA': 'assessor' },
      });
    const account = accounts.get(seed.email.toLowerCase());
    const exists = account && account.status !== 'pending_verification';
    const onboarding = exists
      ? ((await as('GET', '/onboarding/mine')).onboardings as Array<{ persona: string; status: string }>).find(
          (o) => o.persona === 'assessor',
        )
      : undefined;
    const profile = onboarding?.status === 'completed' ? await as('GET', '/assessor/profile') : undefined;
    if (profile && profile.status !== 'pending' && profile.status !== 'approved') {
      seeding.problems.push(
        `${seeds.where(seed, 'email')}: the assessor ${seed.email} is ${profile.status} on the platform: a seed does not overrule an admin`,
      );
    }
    const requests = profile
      ? ((await as('GET', '/assessor/retained-requests')) as Array<{ id: string; centreId: string; status: string }>)
      : [];
    const currentSectors = profile
      ? (profile.sectors as Array<{ id: string; slug?: string }>)
          .map((s) => [...platform.sectors.values()].find((p) => p.id === s.id)?.slug ?? s.id)
          .sort()
      : [];
    const wantedSectors = [...seed.sectors].sort();

    const changes: Change[] = [
      { record: 'assessorAccounts', outcome: exists ? 'unchanged' : 'created', label: seed.email },
    ];
    const diff: Change['diff'] = {};
    if (onboarding?.status !== 'completed') diff.onboarding = { from: onboarding?.status ?? null, to: 'completed' };
    if (profile?.status !== 'approved') diff.status = { from: profile?.status ?? null, to: 'approved' };
    if (JSON.stringify(currentSectors) !== JSON.stringify(wantedSectors))
      diff.sectors = { from: currentSectors, to: wantedSectors };
    const changed = Object.keys(diff).length > 0;
    changes.push({
      record: 'assessors',
      outcome: !profile ? 'created' : changed ? 'updated' : 'unchanged',
      label: seed.email,
      diff: profile && changed ? diff : undefined,
    });
    const retainedChanges: Change[] = [];
    const retained = (seed.retainedBy ?? []).map((r) => {
      const centreId = platform.centres.get(r.centre)?.id;
      const request = centreId
        ? requests.find((q) => q.centreId === centreId && (q.status === 'pending' || q.status === 'approved'))
        : undefined;
      const outcome: Outcome = request?.status === 'approved' ? 'unchanged' : request ? 'updated' : 'created';
      retainedChanges.push({
        record: 'retainedRequests',
        outcome,
        label: `${seed.email} at ${r.centre}`,
        diff: outcome === 'updated' ? { status: { from: 'pending', to: 'approved' } } : undefined,
      });
      return { ...r, request, outcome };
    });
    const assessor: Step = {
      changes,
      signsInAs: seed,
      run: changed
        ? async () => {
            if (diff.onboarding) {
              if (!onboarding) await as('POST', '/onboarding/start', { persona: 'assessor' });
              await as('PATCH', '/onboarding/assessor/save', {
                personalDetails: seed.personalDetails,
                contactInformation: { emailAddress: seed.email, phoneNumber: seed.phoneNumber },
                residentialAddress: seed.address,
                ...(seed.assessorNo ? { assessorDetails: { assessorNo: seed.assessorNo } } : {}),
              });
              await as('POST', '/onboarding/assessor/submit');
            }
            const current = profile ?? (await as('GET', '/assessor/profile'));
            if (diff.status) await admin.call('POST', `/admin/assessors/${current.id}/approve`);
            if (diff.sectors)
              await as('PUT', '/assessor/profile/sectors', {
                sectorIds: seed.sectors.map((slug) => ids.sectors.get(slug)),
              });
          }
        : undefined,
    };
    if (!retained.length) return { assessor };
    const asking = retained.filter((r) => r.outcome !== 'unchanged');
    return {
      assessor,
      retained: {
        changes: retainedChanges,
        run: asking.length
          ? async () => {
              for (const r of asking) {
                const centreId = ids.centres.get(r.centre)!;
                const owner = await seeding.session(seededCentres.get(r.centre)!.superAdmin);
                const request =
                  r.request ??
                  (await as('POST', '/assessor/retained-requests', { centreId, preferredRole: r.preferredRole }));
                await api.call('PATCH', `/v1/cap/centre/retained-requests/${request.id}/approve`, {
                  token: owner.accessToken,
                  headers: { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centreId },
                });
              }
            }
          : undefined,
      },
    };
  });
}

/** Runs `work` over the items, at most `limit` at a time; answers the results in order. The first failure stops new work and is thrown. */
export async function inParallel<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed) {
      const index = next++;
      try {
        results[index] = await work(items[index]!);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
