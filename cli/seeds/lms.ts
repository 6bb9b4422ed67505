/**
 * The LMS part of `capctl seed`: LMS staff admins (invited in the LMS database, then onboarded through
 * the API) and published courses authored by the first of them. A course is found by its title among
 * the admin's authoring courses; one that exists is left as it is (authoring is not diffed).
 */
import { inviteLmsStaff } from '../dev-accounts.ts';
import { multipartBody } from '../multipart.ts';
import { CommandFailed, type Api } from '../session.ts';
import type { SeedCourse, SeedCourseItem, SeedPerson } from './load.ts';

type Note = (record: string, outcome: 'created' | 'updated' | 'unchanged', label: string) => void;
type Person = (api: Api, seed: SeedPerson, record: string, note: Note, dryRun: boolean) => Promise<{ userId: string; accessToken: string } | undefined>;

const staffForm = {
  personalDetails: { firstName: 'LMS', lastName: 'Admin', gender: 'unspecified' },
  contactInformation: { phoneNumber: { countryCode: '+234', number: '8000000000' } },
};

export async function seedLms(
  api: Api,
  seeds: { lmsAdmins: SeedPerson[]; lmsCourses: SeedCourse[] },
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
    return;
  }
  const lms = (method: string, urlPath: string, body?: unknown) => api.call<any>(method, `/v1/lms${urlPath}`, { token, body });
  const existing = (await lms('GET', '/authoring/courses?limit=100')) as Array<{ title: string }>;
  for (const course of seeds.lmsCourses) {
    const found = existing.some((c) => c.title === course.title);
    note('lmsCourses', found ? 'unchanged' : 'created', course.title);
    if (found || options.dryRun) continue;
    await createCourse(api, token, course);
  }
}

async function createCourse(api: Api, token: string, seed: SeedCourse): Promise<void> {
  const lms = (method: string, urlPath: string, body?: unknown) => api.call<any>(method, `/v1/lms${urlPath}`, { token, body });
  const course = await lms('POST', '/authoring/courses', {
    title: seed.title,
    ...(seed.description ? { description: seed.description } : {}),
    price: { amountMinorUnits: seed.price ?? '0', currency: 'NGN' },
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
  const [{ zipFolder }, { projectPath }] = await Promise.all([import('../../server/lms/scorm/package.ts'), import('../../server/platform/paths.ts')]);
  const bytes = await zipFolder(projectPath('fixtures', 'scorm', name));
  const asset = await api.call<{ assetId: string }>('POST', '/v1/ol/storage/upload', { token, body: multipartBody(`${name}.zip`, bytes, { purpose: 'scorm_package' }) });
  return asset.assetId;
}

