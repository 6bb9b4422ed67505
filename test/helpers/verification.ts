import { newId } from '../../server/platform/ids.ts';
import { cap, onboard } from './cap.ts';
import { sql, type TestPlatform } from './platform.ts';
import { firstSignIn, signUp, uniqueEmail, type SignedUpUser } from './users.ts';

// The people of verification: awarding bodies and their members, approved assessors, retention.

/** An awarding body made by the platform admin, with its first admin signed in and let in. */
export async function awardingBody(
  platform: TestPlatform,
  admin: SignedUpUser,
  name = 'National Board for Technical Education',
) {
  const email = uniqueEmail('body-admin');
  const made = await cap(platform, admin, 'POST', '/admin/awarding-bodies', {
    json: { name, registrationNo: `AB-${newId()}`, admin: { name: 'Aisha Bello', email } },
  });
  if (made.status !== 201) throw new Error(`awarding body: ${made.status} ${made.text}`);
  const member = await firstSignIn(platform, email);
  await cap(platform, member, 'GET', '/me');
  return { awardingBodyId: made.body.data.id as string, member };
}

/** A user who onboarded as an assessor, their profile approved (what an admin's approval does); answers the profile id. */
export async function approvedAssessor(platform: TestPlatform, status = 'approved') {
  const user = await signUp(platform);
  await onboard(platform, user, 'assessor');
  const [row] = await sql<{ id: string }>(
    platform,
    'UPDATE cap.assessor_profiles SET status = $2 WHERE user_id = $1 RETURNING id',
    [user.userId, status],
  );
  return { user, assessorId: row!.id };
}

/** The centre retains the assessor: an approved retained request (what the retained-requests operations make). */
export async function retain(platform: TestPlatform, centreId: string, assessorId: string) {
  await sql(
    platform,
    `INSERT INTO cap.retained_requests (id, assessor_id, centre_id, preferred_role, status, created_at, updated_at) VALUES ($1, $2, $3, 'any', 'approved', now(), now())`,
    [newId(), assessorId, centreId],
  );
}
