import test from 'ava';
import { newId } from '../../server/platform/ids.ts';
import { cap, centreDraft, onboard } from '../helpers/cap.ts';
import { sql, type TestPlatform } from '../helpers/platform.ts';
import { platformWithAdmin, signUp, uniqueEmail, type SignedUpUser } from '../helpers/users.ts';

// A registration number names one centre (openapi/cap.yaml, centre.registration_taken): every path that
// creates a centre, or changes its number, refuses one another centre has, with 409 and nothing written.
let platform: TestPlatform;
let admin: SignedUpUser;
test.before(async () => {
  ({ platform, admin } = await platformWithAdmin());
});
test.after.always(() => platform?.stop());

const createCentre = (registrationNo: string, email = uniqueEmail('owner')) =>
  cap(platform, admin, 'POST', '/admin/centres', {
    json: { name: 'Lagos Skills Academy', registrationNo, superAdmin: { name: 'Ada Obi', email } },
  });
const centresNumbered = async (registrationNo: string) =>
  (
    await sql<{ n: number }>(platform, 'SELECT count(*)::int AS n FROM cap.centres WHERE registration_no = $1', [
      registrationNo,
    ])
  )[0]!.n;

test('an admin creating a centre with a number another centre has is 409, and no account is made for its super admin', async (t) => {
  const registrationNo = `CAP-${newId()}`;
  t.is((await createCentre(registrationNo)).status, 201);
  const email = uniqueEmail('second-owner');
  const again = await createCentre(registrationNo, email);
  t.is(again.status, 409);
  t.is(again.body.error.code, 'centre.registration_taken');
  t.is(await centresNumbered(registrationNo), 1);
  t.deepEqual(
    await sql(platform, 'SELECT id FROM ol.users WHERE email = $1', [email]),
    [],
    'nothing was written: not even the account',
  );
});

test("a centre onboarding submitted with another centre's number is 409 and stays a draft; the owner's settings cannot take one either", async (t) => {
  const registrationNo = `CAP-${newId()}`;
  t.is((await createCentre(registrationNo)).status, 201);
  const owner = await signUp(platform);
  t.is((await cap(platform, owner, 'POST', '/onboarding/start', { json: { persona: 'centre' } })).status, 201);
  t.is(
    (await cap(platform, owner, 'PATCH', '/onboarding/centre/save', { json: centreDraft(registrationNo) })).status,
    200,
  );
  const submitted = await cap(platform, owner, 'POST', '/onboarding/centre/submit');
  t.is(submitted.status, 409);
  t.is(submitted.body.error.code, 'centre.registration_taken');
  t.is(await centresNumbered(registrationNo), 1);
  const [onboarding] = await sql<{ status: string }>(
    platform,
    `SELECT status FROM cap.onboardings WHERE user_id = $1 AND persona = 'centre'`,
    [owner.userId],
  );
  t.not(onboarding!.status, 'completed');

  // An owner whose centre exists changes its number in the settings (a save of the completed draft).
  const other = await signUp(platform);
  await onboard(platform, other, 'centre');
  const renumbered = await cap(platform, other, 'PATCH', '/onboarding/centre/save', {
    json: { centre: { centreInformation: { registrationNo } } },
  });
  t.is(renumbered.status, 409);
  t.is(renumbered.body.error.code, 'centre.registration_taken');
  t.is(await centresNumbered(registrationNo), 1);
});
