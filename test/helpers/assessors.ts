import { asCentre, cap, drafts, onboard } from './cap.ts';
import { sql, type TestPlatform } from './platform.ts';
import { signUp, type SignedUpUser } from './users.ts';

// Assessors for the assessor market's tests: onboarded, and approved by a platform admin.

export const asAssessor = { 'X-CAP-PERSONA': 'assessor' };

export interface TestAssessor {
  user: SignedUpUser;
  /** The assessor profile's id. */
  id: string;
}

/** A user who submitted the assessor onboarding (with `details` merged into the draft's assessorDetails). */
export async function onboardedAssessor(
  platform: TestPlatform,
  details: object = {},
  name = { firstName: 'Ada', lastName: 'Obi' },
): Promise<TestAssessor> {
  const user = await signUp(platform);
  await onboard(platform, user, 'assessor', {
    ...drafts.assessor,
    personalDetails: { ...drafts.assessor.personalDetails, ...name },
    assessorDetails: { ...drafts.assessor.assessorDetails, ...details },
  });
  const [row] = await sql<{ id: string }>(platform, 'SELECT id FROM cap.assessor_profiles WHERE user_id = $1', [
    user.userId,
  ]);
  return { user, id: row!.id };
}

/** An onboarded assessor whose profile the platform admin `admin` approved. */
export async function approvedAssessor(
  platform: TestPlatform,
  admin: SignedUpUser,
  details: object = {},
  name?: { firstName: string; lastName: string },
): Promise<TestAssessor> {
  const assessor = await onboardedAssessor(platform, details, name);
  const approved = await cap(platform, admin, 'POST', `/admin/assessors/${assessor.id}/approve`);
  if (approved.status !== 200) throw new Error(`approve assessor: ${approved.status} ${approved.text}`);
  return assessor;
}

/** An approved assessor retained by the centre: they asked, and its super admin `owner` approved. */
export async function retainedAssessor(
  platform: TestPlatform,
  admin: SignedUpUser,
  owner: SignedUpUser,
  centreId: string,
  details: object = {},
  name?: { firstName: string; lastName: string },
): Promise<TestAssessor & { requestId: string }> {
  const assessor = await approvedAssessor(platform, admin, details, name);
  const asked = await cap(platform, assessor.user, 'POST', '/assessor/retained-requests', {
    headers: asAssessor,
    json: { centreId, preferredRole: 'any' },
  });
  if (asked.status !== 201) throw new Error(`ask to be retained: ${asked.status} ${asked.text}`);
  const approved = await cap(platform, owner, 'PATCH', `/centre/retained-requests/${asked.body.data.id}/approve`, {
    headers: asCentre(centreId),
  });
  if (approved.status !== 200) throw new Error(`approve retained request: ${approved.status} ${approved.text}`);
  return { ...assessor, requestId: asked.body.data.id };
}
