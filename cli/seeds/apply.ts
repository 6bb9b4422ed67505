/**
 * Brings a platform to what the seed files say, through its public and admin APIs (so seeding is itself
 * a test of them): each item is read first and only written when missing or different, so a second
 * run changes nothing. With `dryRun` nothing is written; the plan is what the counts say.
 */
import { firstSignIn, grantPlatformAdmin, registerVerified, signIn, type SignedIn } from '../dev-accounts.ts';
import { ApiError, CommandFailed, type Api } from '../session.ts';
import type { SeedAssessor, SeedCentre, SeedPerson, SeedSector, SeedSet, SeedTrade } from './load.ts';
import { seedLms } from './lms.ts';

export const seedKinds = ['people', 'catalogue', 'centres', 'assessors', 'lms'] as const;
export type SeedKind = (typeof seedKinds)[number];
export type Outcome = 'created' | 'updated' | 'unchanged';

export interface SeedOptions {
  dryRun: boolean;
  only: ReadonlySet<SeedKind>;
  /** The platform's database, for granting platform roles (people). */
  databaseUrl?: string;
  /** Who writes the catalogue and centres: a signed-in platform admin's token, else the first seeded admin. */
  adminToken?: string;
  /** One line per item as it is done (progress on a terminal). */
  progress?: (line: string) => void;
}

export interface SeedReport {
  dryRun: boolean;
  /** Counts per kind of record: sectors, trades, nosDocuments, centres, centreStaff, platformAdmins, candidates, assessors, retainedRequests. */
  counts: Record<string, Record<Outcome, number>>;
}

export async function applySeeds(api: Api, seeds: SeedSet, options: SeedOptions): Promise<SeedReport> {
  const report: SeedReport = { dryRun: options.dryRun, counts: {} };
  const note = (record: string, outcome: Outcome, label: string) => {
    const counts = (report.counts[record] ??= { created: 0, updated: 0, unchanged: 0 });
    counts[outcome]++;
    options.progress?.(`${options.dryRun && outcome !== 'unchanged' ? `would be ${outcome}` : outcome}: ${record} ${label}`);
  };

  if (options.only.has('people')) {
    for (const admin of seeds.platformAdmins) {
      const account = await person(api, admin, 'platformAdmins', note, options.dryRun);
      if (!account) continue;
      if (!options.databaseUrl) throw new CommandFailed(`granting ${admin.email} platform_admin needs the platform's database: run where capctl serve runs, or pass --database-url`);
      if (await grantPlatformAdmin(options.databaseUrl, account.userId, admin.email)) options.progress?.(`granted: platform_admin to ${admin.email}`);
    }
    for (const candidate of seeds.candidates) await person(api, candidate, 'candidates', note, options.dryRun);
  }
  await seedCap(api, seeds, options, note);
  // After the catalogue: LMS courses and level offerings name CAP trades, levels and units.
  if (options.only.has('lms') && (seeds.lmsAdmins.length || seeds.lmsCourses.length)) await seedLms(api, seeds, options, person, note);
  return report;
}

/** The CAP part: the catalogue, centres and assessors, as the seeded platform admin. */
async function seedCap(api: Api, seeds: SeedSet, options: SeedOptions, note: Note): Promise<void> {
  const needsAdmin =
    (options.only.has('catalogue') && seeds.sectors.length > 0) || (options.only.has('centres') && seeds.centres.length > 0) || (options.only.has('assessors') && seeds.assessors.length > 0);
  if (!needsAdmin) return;
  const token = options.adminToken ?? (await seededAdminToken(api, seeds.platformAdmins));
  if (!token && !options.dryRun) {
    throw new CommandFailed('no platform admin to seed as: sign one in (capctl login) and pass --profile, or seed people with a platform admin that has a password');
  }
  // Before the admin exists (a dry run on a fresh platform), everything is planned as new.
  const admin = (method: string, urlPath: string, body?: unknown) => api.call<any>(method, `/v1/cap${urlPath}`, { token, body });

  if (options.only.has('catalogue')) {
    for (const sector of seeds.sectors) await seedSector(admin, sector, note, options.dryRun, Boolean(token));
  }
  if (options.only.has('centres')) {
    for (const centre of seeds.centres) await seedCentre(api, admin, centre, note, options.dryRun, Boolean(token));
  }
  if (options.only.has('assessors')) {
    for (const assessor of seeds.assessors) await seedAssessor(api, admin, assessor, seeds.centres, note, options.dryRun);
  }
}

type Note = (record: string, outcome: Outcome, label: string) => void;
type AdminCall = (method: string, urlPath: string, body?: unknown) => Promise<any>;

/** An account with a password: signed in when it exists, registered and verified when it does not. */
async function person(api: Api, seed: SeedPerson, record: string, note: Note, dryRun: boolean): Promise<SignedIn | undefined> {
  if (!seed.password) throw new CommandFailed(`${seed.email}: seeded people need a password (development platforms only)`);
  const existing = await signIn(api, seed.email, seed.password);
  if (existing) {
    note(record, 'unchanged', seed.email);
    return existing;
  }
  note(record, 'created', seed.email);
  if (dryRun) return undefined;
  try {
    return await registerVerified(api, seed.email, seed.password);
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) throw new CommandFailed(`${seed.email} already has an account with another password: change the seed or the account`);
    throw err;
  }
}

async function seededAdminToken(api: Api, admins: SeedPerson[]): Promise<string | undefined> {
  const first = admins.find((a) => a.password);
  return first ? (await signIn(api, first.email, first.password!))?.accessToken : undefined;
}

/** The first row an exact-match admin list answers, or undefined. */
async function findOne(admin: AdminCall, urlPath: string, matches: (row: any) => boolean): Promise<any> {
  return ((await admin('GET', urlPath)) as any[]).find(matches);
}

/** The fields of `wanted` whose value differs from `current` (missing ones count as null). */
function changes(current: Record<string, unknown>, wanted: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(wanted).filter(([key, value]) => JSON.stringify(current[key] ?? null) !== JSON.stringify(value ?? null)));
}

async function seedSector(admin: AdminCall, sector: SeedSector, note: Note, dryRun: boolean, canRead: boolean): Promise<void> {
  const wanted = { name: sector.name, description: sector.description ?? null };
  let current = canRead ? await findOne(admin, `/admin/sectors?slug=${sector.slug}`, (s) => s.slug === sector.slug) : undefined;
  if (!current) {
    note('sectors', 'created', sector.slug);
    if (!dryRun) current = await admin('POST', '/admin/sectors', { slug: sector.slug, ...wanted });
  } else {
    const patch = changes(current, wanted);
    note('sectors', Object.keys(patch).length ? 'updated' : 'unchanged', sector.slug);
    if (Object.keys(patch).length && !dryRun) await admin('PATCH', `/admin/sectors/${current.id}`, patch);
  }
  for (const trade of sector.trades) await seedTrade(admin, current?.id, trade, note, dryRun, canRead);
}

async function seedTrade(admin: AdminCall, sectorId: string | undefined, trade: SeedTrade, note: Note, dryRun: boolean, canRead: boolean): Promise<void> {
  const wanted: Record<string, unknown> = { name: trade.name, description: trade.description ?? null, ...(trade.evidenceTypes ? { evidenceTypes: trade.evidenceTypes } : {}) };
  const found = canRead && sectorId ? await findOne(admin, `/admin/trades?slug=${trade.slug}`, (t) => t.slug === trade.slug) : undefined;
  let tradeId: string | undefined = found?.id;
  if (!found) {
    note('trades', 'created', trade.slug);
    if (!dryRun) tradeId = (await admin('POST', '/admin/trades', { sectorId, slug: trade.slug, ...wanted })).id;
  } else {
    const patch = changes(found, { ...wanted, sectorId });
    // A seeded trade is an active one: an archived trade is brought back.
    const restore = found.status === 'archived';
    note('trades', Object.keys(patch).length || restore ? 'updated' : 'unchanged', trade.slug);
    if (Object.keys(patch).length && !dryRun) await admin('PATCH', `/admin/trades/${found.id}`, patch);
    if (restore && !dryRun) await admin('POST', `/admin/trades/${found.id}/restore`);
  }
  if (!trade.nos) return;
  const document = nosDocument(trade);
  const current = found ? (await admin('GET', `/admin/trades/${found.id}`)).nos : null;
  if (current && sameDocument(current, document)) {
    note('nosDocuments', 'unchanged', trade.slug);
    return;
  }
  note('nosDocuments', found ? 'updated' : 'created', `${trade.slug} (${document.levels.length} levels)`);
  if (!dryRun) await admin('POST', `/admin/trades/${tradeId}/nos`, document);
}

/** The seed's NOS in the import shape of POST /admin/trades/{id}/nos. */
function nosDocument(trade: SeedTrade) {
  return {
    title: trade.nos!.title,
    levels: trade.nos!.levels.map((level) => ({
      level: level.level,
      purpose: level.purpose,
      units: level.units.map(({ mandatory, learningOutcomes, ...unit }) => ({ ...unit, isMandatory: mandatory ?? true, learningOutcomes })),
    })),
  };
}

/** The active document says what the seed says (fields the seed leaves out are not compared). */
function sameDocument(current: any, wanted: ReturnType<typeof nosDocument>): boolean {
  const pick = (value: any, like: any): any => {
    if (Array.isArray(like)) return Array.isArray(value) ? value.slice(0, like.length + 1).map((v, i) => pick(v, like[i] ?? like[0])) : value;
    if (like && typeof like === 'object') return value && typeof value === 'object' ? Object.fromEntries(Object.keys(like).map((k) => [k, pick(value[k], like[k])])) : value;
    return value;
  };
  return JSON.stringify(pick(current, wanted)) === JSON.stringify(wanted);
}

async function seedCentre(api: Api, admin: AdminCall, centre: SeedCentre, note: Note, dryRun: boolean, canRead: boolean): Promise<void> {
  const found = canRead ? await findOne(admin, `/admin/centres?q=${encodeURIComponent(centre.registrationNo)}`, (c) => c.registrationNo === centre.registrationNo) : undefined;
  let centreId: string | undefined = found?.id;
  note('centres', found ? 'unchanged' : 'created', centre.registrationNo);
  if (!found && !dryRun) {
    centreId = (await admin('POST', '/admin/centres', {
      name: centre.name,
      registrationNo: centre.registrationNo,
      ...(centre.address ? { address: centre.address } : {}),
      superAdmin: { name: centre.superAdmin.name, email: centre.superAdmin.email },
    })).id;
  }
  if (!centre.staff?.length || !centre.superAdmin.password) return;
  // The super admin adds the staff: signed in with their password, or at first with the mailed one.
  const owner = dryRun ? undefined : ((await signIn(api, centre.superAdmin.email, centre.superAdmin.password)) ?? (await firstSignIn(api, centre.superAdmin.email, centre.superAdmin.password)));
  const asOwner = (method: string, urlPath: string, body?: unknown) =>
    api.call<any>(method, `/v1/cap${urlPath}`, { token: owner!.accessToken, body, headers: { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centreId! } });
  for (const member of centre.staff) {
    const existing = owner ? ((await asOwner('GET', `/centre/staff?q=${encodeURIComponent(member.email)}`)) as any[]).find((s) => s.email === member.email.toLowerCase()) : undefined;
    note('centreStaff', existing ? 'unchanged' : 'created', `${member.email} at ${centre.registrationNo}`);
    if (!existing && !dryRun) await asOwner('POST', '/centre/staff', member);
  }
}

/**
 * An approved assessor, in their sectors, retained by their centres: the account (registered when
 * missing), the completed assessor onboarding, the admin's approval, the sectors, and for each centre
 * a request the centre's super admin (centres.yaml, with a password) approves. What is already so is
 * left alone.
 */
async function seedAssessor(api: Api, admin: AdminCall, seed: SeedAssessor, centres: SeedCentre[], note: Note, dryRun: boolean): Promise<void> {
  const account = await person(api, seed, 'assessorAccounts', note, dryRun);
  if (!account) {
    note('assessors', 'created', seed.email);
    for (const retained of seed.retainedBy ?? []) note('retainedRequests', 'created', `${seed.email} at ${retained.centre}`);
    return;
  }
  const as = (method: string, urlPath: string, body?: unknown) =>
    api.call<any>(method, `/v1/cap${urlPath}`, { token: account.accessToken, body, headers: { 'X-CAP-PERSONA': 'assessor' } });
  const onboarding = ((await as('GET', '/onboarding/mine')).onboardings as Array<{ persona: string; status: string }>).find((o) => o.persona === 'assessor');
  let changed = false;
  if (onboarding?.status !== 'completed') {
    changed = true;
    if (!dryRun) {
      if (!onboarding) await as('POST', '/onboarding/start', { persona: 'assessor' });
      await as('PATCH', '/onboarding/assessor/save', {
        personalDetails: seed.personalDetails,
        contactInformation: { emailAddress: seed.email, phoneNumber: seed.phoneNumber },
        residentialAddress: seed.address,
        ...(seed.assessorNo ? { assessorDetails: { assessorNo: seed.assessorNo } } : {}),
      });
      await as('POST', '/onboarding/assessor/submit');
    }
  }
  if (dryRun && changed) {
    note('assessors', 'created', seed.email);
    return;
  }
  const profile = await as('GET', '/assessor/profile');
  if (profile.status === 'pending') {
    changed = true;
    if (!dryRun) await admin('POST', `/admin/assessors/${profile.id}/approve`);
  } else if (profile.status !== 'approved') {
    throw new CommandFailed(`assessor ${seed.email} is ${profile.status} on the platform: a seed does not overrule an admin`);
  }
  const catalogue = (await api.call<Array<{ id: string; slug: string }>>('GET', '/v1/cap/sectors')) ?? [];
  const sectorIds = seed.sectors.map((slug) => {
    const sector = catalogue.find((s) => s.slug === slug);
    if (!sector) throw new CommandFailed(`assessor ${seed.email}: no sector ${slug} in the catalogue (seed the catalogue first)`);
    return sector.id;
  });
  const current = (profile.sectors as Array<{ id: string }>).map((s) => s.id);
  if (current.length !== sectorIds.length || sectorIds.some((id) => !current.includes(id))) {
    changed = true;
    if (!dryRun) await as('PUT', '/assessor/profile/sectors', { sectorIds });
  }
  note('assessors', changed ? (onboarding?.status === 'completed' ? 'updated' : 'created') : 'unchanged', seed.email);

  const requests = (await as('GET', '/assessor/retained-requests')) as Array<{ id: string; centreId: string; status: string }>;
  for (const retained of seed.retainedBy ?? []) {
    const label = `${seed.email} at ${retained.centre}`;
    const centre = await findOne(admin, `/admin/centres?q=${encodeURIComponent(retained.centre)}`, (c) => c.registrationNo === retained.centre);
    if (!centre) throw new CommandFailed(`assessor ${seed.email}: no centre ${retained.centre} (seed the centres first)`);
    let request = requests.find((r) => r.centreId === centre.id && (r.status === 'pending' || r.status === 'approved'));
    if (request?.status === 'approved') {
      note('retainedRequests', 'unchanged', label);
      continue;
    }
    note('retainedRequests', request ? 'updated' : 'created', label);
    if (dryRun) continue;
    const superAdmin = centres.find((c) => c.registrationNo === retained.centre)?.superAdmin;
    if (!superAdmin?.password) throw new CommandFailed(`assessor ${seed.email}: centre ${retained.centre} needs a seeded super admin with a password to approve the request`);
    const owner = (await signIn(api, superAdmin.email, superAdmin.password)) ?? (await firstSignIn(api, superAdmin.email, superAdmin.password));
    request ??= await as('POST', '/assessor/retained-requests', { centreId: centre.id, preferredRole: retained.preferredRole });
    await api.call('PATCH', `/v1/cap/centre/retained-requests/${request!.id}/approve`, {
      token: owner.accessToken,
      headers: { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centre.id },
    });
  }
}
