import { createSequelize } from '../../server/platform/db/database.ts';
import { createInvites } from '../../server/lms/people/staff/invites.ts';
import type { StaffRole } from '../../server/lms/people/staff/models.ts';
import { call, type JsonResponse, type TestPlatform } from './platform.ts';
import { signUp, type SignedUpUser } from './users.ts';

/** Someone with a completed LMS persona: their Orchestrator account and their LMS user id. */
export interface LmsPerson extends SignedUpUser {
  lmsUserId: string;
}

/** Calls the LMS as `user`. */
export function lms(
  platform: TestPlatform,
  user: SignedUpUser | undefined,
  method: string,
  path: string,
  json?: unknown,
): Promise<JsonResponse> {
  return call(method as never, platform.url(`/v1/lms${path}`), { token: user?.accessToken, json });
}

const personalDetails = { firstName: 'Ada', lastName: 'Obi', gender: 'female' };
const contactInformation = { phoneNumber: { countryCode: '+234', number: '8031234567' } };
const residentialAddress = { country: 'Nigeria', state: 'Lagos', lga: 'Ikeja' };
const forms = {
  learner: { personalDetails, contactInformation, residentialAddress },
  instructor: {
    personalDetails,
    contactInformation,
    residentialAddress,
    bio: 'Tiler for twenty years.',
    tradeIds: ['tiling'],
  },
  staff: { personalDetails, contactInformation },
} as const;

/** Starts, fills in and submits a persona's onboarding through the API; fails loudly on any refusal. */
export async function onboard(
  platform: TestPlatform,
  user: SignedUpUser,
  persona: keyof typeof forms,
): Promise<LmsPerson> {
  for (const [method, path, body] of [
    ['POST', '/onboarding/start', { persona }],
    ['PATCH', `/onboarding/${persona}/save`, forms[persona]],
    ['POST', `/onboarding/${persona}/submit`, undefined],
  ] as const) {
    const res = await lms(platform, user, method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  }
  const me = await lms(platform, user, 'GET', '/me');
  return { ...user, lmsUserId: me.body.data.lmsUserId };
}

/** A learner with a completed learner onboarding. */
export async function lmsLearner(platform: TestPlatform): Promise<LmsPerson> {
  return onboard(platform, await signUp(platform), 'learner');
}

/**
 * A staff member with `role`. The first staff of a platform are invited by the operator (there is
 * nobody to invite them through the API), so the invite is written directly, then accepted through
 * the staff onboarding.
 */
export async function lmsStaff(platform: TestPlatform, role: StaffRole = 'admin'): Promise<LmsPerson> {
  const user = await signUp(platform);
  const sequelize = createSequelize(platform.databaseUrl, 'lms', 1);
  try {
    await createInvites(sequelize).create('staff', user.email, null, role);
  } finally {
    await sequelize.close();
  }
  return onboard(platform, user, 'staff');
}

/** An instructor, invited by `inviter` (staff) through the API and onboarded. */
export async function lmsInstructor(platform: TestPlatform, inviter: LmsPerson): Promise<LmsPerson> {
  const user = await signUp(platform);
  const invite = await lms(platform, inviter, 'POST', '/instructors/invites', { email: user.email });
  if (invite.status !== 201) throw new Error(`instructor invite: ${invite.status} ${invite.text}`);
  return onboard(platform, user, 'instructor');
}

/** A published course by `author` (instructor or staff): one module with one lesson. */
export async function publishedCourse(
  platform: TestPlatform,
  author: LmsPerson,
  title = 'Plumbing basics',
  price = '500000',
): Promise<{ id: string; title: string }> {
  const course = (
    await lms(platform, author, 'POST', '/authoring/courses', {
      title,
      price: { amountMinorUnits: price, currency: 'NGN' },
    })
  ).body.data;
  const module = (await lms(platform, author, 'POST', `/authoring/courses/${course.id}/modules`, { title: 'Start' }))
    .body.data;
  await lms(platform, author, 'POST', `/authoring/courses/${course.id}/modules/${module.id}/items`, {
    type: 'native_lesson',
    title: 'Welcome',
    body: { schemaVersion: 1, html: '<p>Hello</p>' },
  });
  const published = await lms(platform, author, 'POST', `/authoring/courses/${course.id}/publish`);
  if (published.status !== 200) throw new Error(`publish: ${published.status} ${published.text}`);
  return { id: course.id, title };
}
