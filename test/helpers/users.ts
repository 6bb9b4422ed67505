import { openCapSchema, type PlatformRole } from '../../server/cap/operator/index.ts';
import { newId } from '../../server/platform/ids.ts';
import { call, startTestPlatform, type TestPlatform } from './platform.ts';

export interface SignedUpUser {
  userId: string;
  email: string;
  password: string;
  accessToken: string;
  refreshToken: string;
}

export const testPassword = 'Correct-horse-9';

/** A fresh address nobody has used in this database. */
export const uniqueEmail = (label = 'user') => `${label}+${newId().toLowerCase()}@example.test`;

/**
 * The newest mail to an address in the dev mailbox (the platform runs in dev mode in tests). Mail is
 * delivered by the event bus, so it may take a moment; a loaded machine can take seconds.
 */
export async function latestMail(
  platform: TestPlatform,
  to: string,
): Promise<{ subject: string; text: string; otp?: string; password?: string; template?: string }> {
  for (let attempt = 0; attempt < 300; attempt++) {
    const res = await call('GET', platform.url(`/v1/ol/dev/mailbox?to=${encodeURIComponent(to)}`));
    if (res.status === 200 && res.body.data.length > 0) return res.body.data[0];
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no mail reached ${to}`);
}

/** Registers, reads the OTP from the dev mailbox and verifies: the real sign-up flow, over HTTP. */
export async function signUp(
  platform: TestPlatform,
  options: { email?: string; password?: string; intents?: string[] } = {},
): Promise<SignedUpUser> {
  const email = options.email ?? uniqueEmail();
  const password = options.password ?? testPassword;
  const registered = await call('POST', platform.url('/v1/ol/auth/register'), {
    json: { email, password, intents: options.intents ?? ['cap'] },
  });
  if (registered.status !== 201) throw new Error(`register failed: ${registered.status} ${registered.text}`);
  const { otp } = await latestMail(platform, email);
  const verified = await call('POST', platform.url('/v1/ol/auth/verify-account'), {
    json: { email, otp, purpose: 'account_verify' },
  });
  if (verified.status !== 200) throw new Error(`verify-account failed: ${verified.status} ${verified.text}`);
  const { accessToken, refreshToken, user } = verified.body.data;
  return { userId: user.userId ?? user.id, email, password, accessToken, refreshToken };
}

/**
 * Signs in with the password ProvisionAccount mailed and changes it to `testPassword`, as a new member
 * must before anything else: the answer is the member, ready to act.
 */
export async function firstSignIn(platform: TestPlatform, email: string): Promise<SignedUpUser> {
  const { password } = await latestMail(platform, email);
  const login = await call('POST', platform.url('/v1/ol/auth/login'), { json: { email, password } });
  if (login.status !== 200) throw new Error(`login with the mailed password: ${login.status} ${login.text}`);
  const changed = await call('PATCH', platform.url('/v1/ol/auth/change-password'), {
    token: login.body.data.accessToken,
    json: { currentPassword: password, newPassword: testPassword },
  });
  if (changed.status !== 200) throw new Error(`change of the mailed password: ${changed.status} ${changed.text}`);
  return { userId: login.body.data.user.userId, email, password: testPassword, ...changed.body.data };
}

/**
 * Grants a platform role the way `capctl admin create` does: straight into the CAP schema (no API
 * grants one), then waits until the platform has heard of it, as `sql` does.
 */
export async function grantPlatformRole(
  platform: TestPlatform,
  user: SignedUpUser,
  role: PlatformRole = 'platform_admin',
): Promise<{ granted: boolean }> {
  const cap = await openCapSchema(platform.databaseUrl, 1);
  try {
    return await cap.grantPlatformRole({ userId: user.userId, email: user.email }, role);
  } finally {
    await cap.close();
    // The caller CAP keeps holds their roles: the grant shows once the database has notified it.
    await platform.settled?.();
  }
}

/** A test platform with a platform admin signed up: where the back-office tests start. */
export async function platformWithAdmin(): Promise<{ platform: TestPlatform; admin: SignedUpUser }> {
  const platform = await startTestPlatform();
  const admin = await signUp(platform);
  await grantPlatformRole(platform, admin);
  return { platform, admin };
}
