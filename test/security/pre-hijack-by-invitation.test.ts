import test from 'ava';
import { cap } from '../helpers/cap.ts';
import { call, type TestPlatform } from '../helpers/platform.ts';
import { firstSignIn, latestMail, type SignedUpUser, uniqueEmail, platformWithAdmin } from '../helpers/users.ts';

// Attack: pre-hijacking by invitation. The attacker registers an address and never verifies it; an
// admin then creates a centre naming that address as its super admin, and ProvisionAccount used to
// hand the attacker's account over as it was. Refused: the unproven account gets a generated password,
// mailed to the address, and the attacker's password is gone.
let platform: TestPlatform;
let admin: SignedUpUser;

test.before(async () => ({ platform, admin } = await platformWithAdmin()));
test.after.always(() => platform?.stop());

test("an invitation to an address that was registered but never verified drops the registrant's password and mails a new one", async (t) => {
  const owner = uniqueEmail('owner');
  const attackerPassword = 'Attacker-pass-1';
  await call('POST', platform.url('/v1/ol/auth/register'), {
    json: { email: owner, password: attackerPassword, intents: ['cap'] },
  });
  const centre = await cap(platform, admin, 'POST', '/admin/centres', {
    json: {
      name: 'Ilorin Skills Centre',
      registrationNo: `RC-${Date.now()}`,
      address: { country: 'Nigeria', state: 'Kwara', address: '3 Unity Road' },
      superAdmin: { name: 'Owner', email: owner },
    },
  });
  t.is(centre.status, 201, centre.text);
  t.truthy((await latestMail(platform, owner)).password, 'the owner is mailed a password');
  const attacker = await call('POST', platform.url('/v1/ol/auth/login'), {
    json: { email: owner, password: attackerPassword },
  });
  t.is(attacker.status, 401, "the registrant's password no longer signs in");
  const member = await firstSignIn(platform, owner);
  t.is((await cap(platform, member, 'GET', '/me')).body.data.centres[0].role, 'super_admin');
});
