/**
 * The LMS part of `capctl seed`: LMS staff admins (invited in the LMS database, then onboarded through
 * the API), published courses authored by the first of them (linked to CAP units named by trade slug,
 * level and reference number) and published level offerings of those courses. Courses and offerings
 * are found by title among the admin's; one that exists is left as it is (authoring is not diffed).
 */
import { inviteLmsStaff } from '../dev-accounts.ts';
import { multipartBody } from '../multipart.ts';
import { CommandFailed, type Api } from '../session.ts';
import type { SeedCapPlace, SeedCourse, SeedCourseItem, SeedLevelOffering, SeedPerson } from './load.ts';

type Note = (record: string, outcome: 'created' | 'updated' | 'unchanged', label: string) => void;
type Person = (api: Api, seed: SeedPerson, record: string, note: Note, dryRun: boolean) => Promise<{ userId: string; accessToken: string } | undefined>;

const staffForm = {
  personalDetails: { firstName: 'LMS', lastName: 'Admin', gender: 'unspecified' },
  contactInformation: { phoneNumber: { countryCode: '+234', number: '8000000000' } },
};

export async function seedLms(
  api: Api,
  seeds: { lmsAdmins: SeedPerson[]; lmsCourses: SeedCourse[]; lmsLevelOfferings: SeedLevelOffering[] },
  options: { dryRun: boolean; databaseUrl?: string; progress?: (line: string) => void },
  person: Person,
  note: Note,
): Promise<void> {
  let token: string | undefined;
  for (const admin of seeds.lmsAdmins) {
    const account = await person(api, admin, 'lmsAdmins', note, options.dryRun);
    if (!account) continue;
    const lms = (method: string, urlPath: string, body?: unknown) => api.call<any>(method, `/v1/lms${urlPath}`, { token: account.accessToken, body });
    const me = await lms('GET', '/me');
    if (!me.staffRole) {
      if (!options.databaseUrl) throw new CommandFailed(`making ${admin.email} LMS staff needs the platform's database: run where capctl serve runs, or pass --database-url`);
      await inviteLmsStaff(options.databaseUrl, admin.email);
      await lms('POST', '/onboarding/start', { persona: 'staff' });
      await lms('PATCH', '/onboarding/staff/save', staffForm);
      await lms('POST', '/onboarding/staff/submit');
      options.progress?.(`granted: LMS staff admin to ${admin.email}`);
    }
    token ??= account.accessToken;
  }
  if (!token) {
    if (seeds.lmsCourses.length && !options.dryRun) throw new CommandFailed('seeding LMS courses needs an LMS admin with a password in the seed files');
    for (const course of seeds.lmsCourses) note('lmsCourses', 'created', course.title);
    for (const offering of seeds.lmsLevelOfferings) note('lmsLevelOfferings', 'created', offering.title);
    return;
  }
  const places = capPlaces(api);
  const lms = (method: string, urlPath: string, body?: unknown) => api.call<any>(method, `/v1/lms${urlPath}`, { token, body });
  const existing = (await lms('GET', '/authoring/courses?limit=100')) as Array<{ title: string }>;
  for (const course of seeds.lmsCourses) {
    const found = existing.some((c) => c.title === course.title);
    note('lmsCourses', found ? 'unchanged' : 'created', course.title);
    if (found || options.dryRun) continue;
    await createCourse(api, token, course, course.cap ? await places(course.cap) : undefined);
  }
  await seedLevelOfferings(lms, seeds.lmsLevelOfferings, places, options.dryRun, note);
}

/** Level offerings found by title among the admin's; a new one is made with its courses (found by title) and published. */
async function seedLevelOfferings(lms: (method: string, urlPath: string, body?: unknown) => Promise<any>, offerings: SeedLevelOffering[], places: CapPlaces, dryRun: boolean, note: Note) {
  if (offerings.length === 0) return;
  const existing = (await lms('GET', '/authoring/level-offerings?limit=100')) as Array<{ title: string }>;
  const courses = (await lms('GET', '/authoring/courses?limit=100')) as Array<{ id: string; title: string }>;
  for (const offering of offerings) {
    const found = existing.some((o) => o.title === offering.title);
    note('lmsLevelOfferings', found ? 'unchanged' : 'created', offering.title);
    if (found || dryRun) continue;
    const items = offering.courses.map((title) => {
      const course = courses.find((c) => c.title === title);
      if (!course) throw new CommandFailed(`level offering "${offering.title}" names the course "${title}", which the seeds do not make`);
      return { courseId: course.id };
    });
    const place = await places(offering.cap);
    const created = await lms('POST', '/authoring/level-offerings', {
      capQualificationLevelId: place.qualificationLevelId,
      title: offering.title,
      ...(offering.description ? { description: offering.description } : {}),
      ...(offering.price ? { price: { amountMinorUnits: offering.price, currency: 'NGN' } } : {}),
      items,
    });
    await lms('POST', `/authoring/level-offerings/${created.id}/publish`);
  }
}

/** CAP catalogue ids of a seed's place (trade slug, level, unit reference), read from CAP's public catalogue. */
type CapPlaces = (place: SeedCapPlace) => Promise<{ sectorId: string; tradeId: string; qualificationLevelId: string; unitId: string | null }>;

function capPlaces(api: Api): CapPlaces {
  let trades: Promise<Map<string, { id: string; sectorId: string }>> | undefined;
  const allTrades = async () => {
    const sectors = (await api.call<Array<{ id: string }>>('GET', '/v1/cap/sectors')) ?? [];
    const lists = await Promise.all(sectors.map((sector) => api.call<Array<{ id: string; sectorId: string; slug: string }>>('GET', `/v1/cap/sectors/${sector.id}/trades`)));
    return new Map(lists.flat().map((trade) => [trade.slug, { id: trade.id, sectorId: trade.sectorId }]));
  };
  return async (place) => {
    const trade = (await (trades ??= allTrades())).get(place.trade);
    if (!trade) throw new CommandFailed(`the CAP catalogue has no active trade "${place.trade}": seed the catalogue first`);
    const detail = await api.call<{ activeNosDocument: { qualificationLevels: Array<{ id: string; level: number; units: Array<{ id: string; referenceNumber: string }> }> } | null }>(
      'GET',
      `/v1/cap/trades/${trade.id}`,
    );
    const level = detail.activeNosDocument?.qualificationLevels.find((l) => l.level === place.level);
    if (!level) throw new CommandFailed(`trade "${place.trade}" has no level ${place.level} in its NOS`);
    const unit = place.unit ? level.units.find((u) => u.referenceNumber === place.unit) : undefined;
    if (place.unit && !unit) throw new CommandFailed(`level ${place.level} of "${place.trade}" has no unit ${place.unit}`);
    return { sectorId: trade.sectorId, tradeId: trade.id, qualificationLevelId: level.id, unitId: unit?.id ?? null };
  };
}

async function createCourse(api: Api, token: string, seed: SeedCourse, capLinkage?: Awaited<ReturnType<CapPlaces>>): Promise<void> {
  const lms = (method: string, urlPath: string, body?: unknown) => api.call<any>(method, `/v1/lms${urlPath}`, { token, body });
  const course = await lms('POST', '/authoring/courses', {
    title: seed.title,
    ...(seed.description ? { description: seed.description } : {}),
    price: { amountMinorUnits: seed.price ?? '0', currency: 'NGN' },
    ...(capLinkage ? { capLinkage } : {}),
  });
  for (const module of seed.modules) {
    const created = await lms('POST', `/authoring/courses/${course.id}/modules`, { title: module.title, optional: module.optional ?? false });
    for (const item of module.items) await lms('POST', `/authoring/courses/${course.id}/modules/${created.id}/items`, await itemBody(api, token, item));
  }
  if (seed.publish !== false) await lms('POST', `/authoring/courses/${course.id}/publish`);
}

async function itemBody(api: Api, token: string, item: SeedCourseItem) {
  const { package: packageName, ...body } = item;
  if (!packageName) return body;
  return { ...body, packageAssetId: await uploadPackage(api, token, packageName) };
}

/** Zips the project's SCORM package fixtures/scorm/<name> and stores it in Orchestrator storage. */
async function uploadPackage(api: Api, token: string, name: string): Promise<string> {
  const [{ zipFolder }, { projectPath }] = await Promise.all([import('../../server/lms/catalogue/scorm/package.ts'), import('../../server/platform/paths.ts')]);
  const bytes = await zipFolder(projectPath('fixtures', 'scorm', name));
  const asset = await api.call<{ assetId: string }>('POST', '/v1/ol/storage/upload', { token, body: multipartBody(`${name}.zip`, bytes, { purpose: 'scorm_package' }) });
  return asset.assetId;
}

