/**
 * Accounts on a development platform, made as a person would make them: through the Orchestrator's
 * public API, with the codes and generated passwords read from the dev mailbox. Platform roles are
 * granted outside the API, in the CAP database, as `capctl admin create` does.
 */
import { ApiError, type Api } from './session.ts';

export interface SignedIn {
  userId: string;
  accessToken: string;
}

type Mail = Record<string, string | undefined>;
const mailbox = (api: Api, to: string, limit = 20, wait?: { after?: string; waitSeconds: number }) =>
  api.call<Mail[]>(
    'GET',
    `/v1/ol/dev/mailbox?${new URLSearchParams({
      to,
      limit: String(limit),
      ...(wait ? { waitSeconds: String(wait.waitSeconds) } : {}),
      ...(wait?.after ? { after: wait.after } : {}),
    })}`,
  );

/**
 * The newest mail to `to` that carries `field`, waiting up to 60 s for it (a loaded platform delivers
 * codes late); the mailbox answers as soon as a new mail is in. With `after` (a mail's id), only a
 * mail newer than that one counts: a code asked for again must not be read from the mail of the
 * request before it, whose code is no longer valid.
 */
export async function mailedValue(api: Api, to: string, field: 'otp' | 'password', after?: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  let newest = after;
  for (;;) {
    const mails = await mailbox(api, to, 20, { after: newest, waitSeconds: 10 });
    const seen = after === undefined ? -1 : mails.findIndex((mail) => mail.id === after);
    const value = (seen === -1 ? mails : mails.slice(0, seen)).find((mail) => mail[field])?.[field];
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(
        `no mail with a${field === 'otp' ? ' code' : ' password'} reached ${to} (is the platform in development mode?)`,
      );
    newest = mails[0]?.id ?? newest;
  }
}

/** Signs in; undefined when the address has no account with that password. */
export async function signIn(api: Api, email: string, password: string): Promise<SignedIn | undefined> {
  try {
    const pair = await api.call<{ accessToken: string; user: { userId: string } }>('POST', '/v1/ol/auth/login', {
      body: { email, password },
    });
    return { userId: pair.user.userId, accessToken: pair.accessToken };
  } catch (err) {
    if (err instanceof ApiError && err.code === 'auth.invalid_credentials') return undefined;
    throw err;
  }
}

/**
 * Registers an account and verifies it with the code from the dev mailbox; answers it signed in.
 * `fresh`: the address is known to have no account, so no code can have been mailed to it before.
 */
export async function registerVerified(api: Api, email: string, password: string, fresh = false): Promise<SignedIn> {
  // A registration never verified (a seed stopped halfway) may have mailed a code already; registering
  // again replaces it, so the code to use is the one mailed after this request.
  const [before] = fresh ? [] : await mailbox(api, email, 1);
  await api.call('POST', '/v1/ol/auth/register', { body: { email, password, intents: ['cap'] } });
  const otp = await mailedValue(api, email, 'otp', before?.id);
  const pair = await api.call<{ accessToken: string; user: { userId: string } }>('POST', '/v1/ol/auth/verify-account', {
    body: { email, otp, purpose: 'account_verify' },
  });
  return { userId: pair.user.userId, accessToken: pair.accessToken };
}

/**
 * The first sign-in of someone who was given an account (a centre's super admin): the mailed
 * password, then the password they choose.
 */
export async function firstSignIn(api: Api, email: string, password: string): Promise<SignedIn> {
  const mailed = await mailedValue(api, email, 'password');
  const first = await signIn(api, email, mailed);
  if (!first) throw new Error(`the password mailed to ${email} does not sign in`);
  const pair = await api.call<{ accessToken: string }>('PATCH', '/v1/ol/auth/change-password', {
    token: first.accessToken,
    body: { currentPassword: mailed, newPassword: password },
  });
  return { userId: first.userId, accessToken: pair.accessToken };
}

/**
 * Grants platform_admin in the CAP database; answers whether it was new. The user id may still be on its
 * way (an account being registered): the operator face loads and opens the schema meanwhile.
 */
export async function grantPlatformAdmin(
  databaseUrl: string,
  userId: string | Promise<string>,
  email: string,
): Promise<boolean> {
  const [cap, id] = await Promise.all([
    import('../server/cap/operator/index.ts').then(({ openCapSchema }) => openCapSchema(databaseUrl, 1)),
    userId,
  ]);
  try {
    return (await cap.grantPlatformRole({ userId: id, email }, 'platform_admin')).granted;
  } finally {
    await cap.close();
  }
}

/**
 * Invites an address to be LMS staff with `role`, in the LMS database (the first LMS staff cannot be
 * invited through the API: only staff invite). The account accepts by completing its staff onboarding.
 * Answers false when the address is already invited or staff.
 */
export async function inviteLmsStaff(
  databaseUrl: string,
  email: string,
  role: 'admin' | 'content_manager' | 'support' = 'admin',
): Promise<boolean> {
  const { inviteStaff } = await import('../server/lms/operator.ts');
  return inviteStaff(databaseUrl, email, role);
}
