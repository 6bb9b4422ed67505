/**
 * The LMS part of `capctl seed`: LMS staff admins (invited in the LMS database, then onboarded through
 * the API), published courses authored by the first of them (linked to CAP units named by trade slug,
 * level and reference number) and published level offerings of those courses. Courses and offerings
 * are found by title among the admin's; one that exists is left as it is (authoring is not diffed).
 */
import { inviteLmsStaff } from '../dev-accounts.ts';
import { multipartBody } from '../multipart.ts';
import { CommandFailed, type Api } from '../session.ts';
import type { Change, Phase, Seeding, Step } from './apply.ts';
import type { SeedCapPlace, SeedCourse, SeedCourseItem } from './load.ts';

const staffForm = {
  personalDetails: { firstName: 'LMS', lastName: 'Admin', gender: 'unspecified' },
  contactInformation: { phoneNumber: { countryCode: '+234', number: '8000000000' } },
};

/** Three phases: the LMS admins, then the courses (authored by the first admin, after the CAP trades they name), then the level offerings. */
export async function planLms(seeding: Seeding): Promise<Phase[]> {
  const { api, seeds, accounts, options } = seeding;
  const exists = (email: string) => {
    const account = accounts.get(email.toLowerCase());
    return Boolean(account && account.status !== 'pending_verification');
  };
  const lmsAs = async (email: string, method: string, urlPath: string, body?: unknown) => {
    const person = seeds.lmsAdmins.find((a) => a.email === email)!;
    return api.call<any>(method, `/v1/lms${urlPath}`, { token: (await seeding.session(person)).accessToken, body });
  };
  const admins = await Promise.all(
    seeds.lmsAdmins.map(async (admin): Promise<Step> => {
      const staff = exists(admin.email) ? Boolean((await lmsAs(admin.email, 'GET', '/me')).staffRole) : false;
      const change: Change = !exists(admin.email)
        ? { record: 'lmsAdmins', outcome: 'created', label: admin.email }
        : {
            record: 'lmsAdmins',
            outcome: staff ? 'unchanged' : 'updated',
            label: admin.email,
            diff: staff ? undefined : { staffRole: { from: null, to: 'admin' } },
          };
      if (staff) return { changes: [change] };
      if (!options.databaseUrl)
        seeding.problems.push(
          `${seeds.where(admin, 'email')}: making ${admin.email} LMS staff needs the platform's database (the first LMS staff cannot be invited through the API): seed where capctl serve runs, or pass --database-url`,
        );
      return {
        changes: [change],
        run: async () => {
          // The invitation is by address: it is made while the account is.
          await Promise.all([seeding.session(admin), inviteLmsStaff(options.databaseUrl!, admin.email)]);
          await lmsAs(admin.email, 'POST', '/onboarding/start', { persona: 'staff' });
          await lmsAs(admin.email, 'PATCH', '/onboarding/staff/save', staffForm);
          await lmsAs(admin.email, 'POST', '/onboarding/staff/submit');
        },
      };
    }),
  );
  const author = seeds.lmsAdmins[0];
  if (!author && (seeds.lmsCourses.length || seeds.lmsLevelOfferings.length))
    throw new CommandFailed('seeding LMS courses needs an LMS admin with a password in the seed files');
  const readable = author && exists(author.email) && admins[0]!.changes[0]!.outcome === 'unchanged';
  const [courses, offerings] = readable
    ? await Promise.all([
        lmsAs(author.email, 'GET', '/authoring/courses?limit=100'),
        lmsAs(author.email, 'GET', '/authoring/level-offerings?limit=100'),
      ])
    : [[], []];
  const places = capPlaces(api, seeding.ids.trades);
  // A CAP place no seed file makes must be on the platform already.
  const seededTrades = new Set(seeds.sectors.flatMap((s) => s.trades.map((t) => t.slug)));
  const onThePlatform = capPlaces(api);
  for (const item of [...seeds.lmsCourses, ...seeds.lmsLevelOfferings]) {
    if (item.cap && !seededTrades.has(item.cap.trade)) {
      await onThePlatform(item.cap).catch((err: Error) =>
        seeding.problems.push(`${seeds.where(item, 'cap')}: ${err.message}`),
      );
    }
  }
  const lms = async (method: string, urlPath: string, body?: unknown) => lmsAs(author!.email, method, urlPath, body);
  const courseSteps = seeds.lmsCourses.map((course): Step => {
    const found = (courses as Array<{ title: string }>).some((c) => c.title === course.title);
    if (found)
      return {
        changes: [{ record: 'lmsCourses', outcome: 'unchanged', label: course.title }],
        name: `course:${course.title}`,
      };
    return {
      changes: [{ record: 'lmsCourses', outcome: 'created', label: course.title }],
      name: `course:${course.title}`,
      after: course.cap ? [`trade:${course.cap.trade}`] : [],
      run: async () =>
        createCourse(
          api,
          (await seeding.session(author!)).accessToken,
          course,
          course.cap ? await places(course.cap) : undefined,
        ),
    };
  });
  const offeringSteps = seeds.lmsLevelOfferings.map((offering): Step => {
    const found = (offerings as Array<{ title: string }>).some((o) => o.title === offering.title);
    if (found) return { changes: [{ record: 'lmsLevelOfferings', outcome: 'unchanged', label: offering.title }] };
    return {
      changes: [{ record: 'lmsLevelOfferings', outcome: 'created', label: offering.title }],
      after: [`trade:${offering.cap.trade}`, ...offering.courses.map((title) => `course:${title}`)],
      run: async () => {
        const authored = (await lms('GET', '/authoring/courses?limit=100')) as Array<{ id: string; title: string }>;
        const place = await places(offering.cap);
        const created = await lms('POST', '/authoring/level-offerings', {
          capQualificationLevelId: place.qualificationLevelId,
          title: offering.title,
          ...(offering.description ? { description: offering.description } : {}),
          ...(offering.price ? { price: { amountMinorUnits: offering.price, currency: 'NGN' } } : {}),
          items: offering.courses.map((title) => ({ courseId: authored.find((c) => c.title === title)!.id })),
        });
        await lms('POST', `/authoring/level-offerings/${created.id}/publish`);
      },
    };
  });
  return [
    { name: 'lmsAdmins', after: [], steps: admins, first: true },
    // A course waits for its own trade (its step), not for the whole catalogue; an offering for its courses.
    { name: 'lmsCourses', after: ['lmsAdmins'], steps: courseSteps, first: true },
    { name: 'lmsLevelOfferings', after: ['lmsAdmins'], steps: offeringSteps, first: true },
  ];
}

interface TradeDetail {
  sectorId: string;
  activeNosDocument: {
    qualificationLevels: Array<{ id: string; level: number; units: Array<{ id: string; referenceNumber: string }> }>;
  } | null;
}

/** CAP catalogue ids of a seed's place (trade slug, level, unit reference), read from CAP's public catalogue. */
type CapPlaces = (
  place: SeedCapPlace,
) => Promise<{ sectorId: string; tradeId: string; qualificationLevelId: string; unitId: string | null }>;

/**
 * `seeded` holds the ids of the trades this run makes or found (a course waits for its trade's step),
 * other trades are looked for in the public catalogue. A trade's detail is read once.
 */
function capPlaces(api: Api, seeded: ReadonlyMap<string, string> = new Map()): CapPlaces {
  let trades: Promise<Map<string, string>> | undefined;
  const allTrades = async () => {
    const sectors = (await api.call<Array<{ id: string }>>('GET', '/v1/cap/sectors')) ?? [];
    const lists = await Promise.all(
      sectors.map((sector) =>
        api.call<Array<{ id: string; slug: string }>>('GET', `/v1/cap/sectors/${sector.id}/trades`),
      ),
    );
    return new Map(lists.flat().map((trade) => [trade.slug, trade.id]));
  };
  const details = new Map<string, Promise<TradeDetail>>();
  return async (place) => {
    const tradeId = seeded.get(place.trade) ?? (await (trades ??= allTrades())).get(place.trade);
    if (!tradeId)
      throw new CommandFailed(`the CAP catalogue has no active trade "${place.trade}": seed the catalogue first`);
    let detail = details.get(tradeId);
    if (!detail) {
      detail = api.call<TradeDetail>('GET', `/v1/cap/trades/${tradeId}`);
      details.set(tradeId, detail);
    }
    const trade = await detail;
    const level = trade.activeNosDocument?.qualificationLevels.find((l) => l.level === place.level);
    if (!level) throw new CommandFailed(`trade "${place.trade}" has no level ${place.level} in its NOS`);
    const unit = place.unit ? level.units.find((u) => u.referenceNumber === place.unit) : undefined;
    if (place.unit && !unit)
      throw new CommandFailed(`level ${place.level} of "${place.trade}" has no unit ${place.unit}`);
    return { sectorId: trade.sectorId, tradeId, qualificationLevelId: level.id, unitId: unit?.id ?? null };
  };
}

async function createCourse(
  api: Api,
  token: string,
  seed: SeedCourse,
  capLinkage?: Awaited<ReturnType<CapPlaces>>,
): Promise<void> {
  const lms = (method: string, urlPath: string, body?: unknown) =>
    api.call<any>(method, `/v1/lms${urlPath}`, { token, body });
  // The items' packages are uploaded while the course and its modules are made.
  const items = Promise.all(
    seed.modules.map((module) => Promise.all(module.items.map((i) => itemBody(api, token, i)))),
  );
  items.catch(() => {}); // awaited below
  const course = await lms('POST', '/authoring/courses', {
    title: seed.title,
    ...(seed.description ? { description: seed.description } : {}),
    price: { amountMinorUnits: seed.price ?? '0', currency: 'NGN' },
    ...(capLinkage ? { capLinkage } : {}),
  });
  for (const [m, module] of seed.modules.entries()) {
    const created = await lms('POST', `/authoring/courses/${course.id}/modules`, {
      title: module.title,
      optional: module.optional ?? false,
    });
    for (const body of (await items)[m]!)
      await lms('POST', `/authoring/courses/${course.id}/modules/${created.id}/items`, body);
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
  const { fixturePackage } = await import('../../server/lms/operator.ts');
  const bytes = await fixturePackage(name);
  const asset = await api.call<{ assetId: string }>('POST', '/v1/ol/storage/upload', {
    token,
    body: multipartBody(`${name}.zip`, bytes, { purpose: 'scorm_package' }),
  });
  return asset.assetId;
}
