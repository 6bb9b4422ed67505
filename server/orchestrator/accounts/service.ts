import crypto from 'node:crypto';
import { Op, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import type { PlatformConfig } from '../../platform/config.ts';
import type { ServiceEvents } from '../../platform/events/types.ts';
import {
  AppError,
  badGateway,
  forbidden,
  tooManyRequests,
  unauthorized,
  unprocessable,
  validationFailed,
} from '../../platform/http/errors.ts';
import { createCallerCache } from '../../platform/db/caller-cache.ts';
import { preparedReads } from '../../platform/db/prepared.ts';
import type { DatabaseWatch } from '../../platform/db/watch.ts';
import { newId } from '../../platform/ids.ts';
import { lifecycleWriter, modelStore, type MoverOf } from '../../platform/lifecycle.ts';
import type { Logger } from '../../platform/logger.ts';
import { GoogleTokenError, type GoogleVerifier } from '../google/verify.ts';
import type { MailRequest, Notifications } from '../notifications/service.ts';
import type { AccessTokens } from '../tokens/access.ts';
import { accountLifecycle } from './lifecycle.ts';
import { defineAccountModels, type AuthProvider, type OtpPurpose, type UserRow, type UserStatus } from './models.ts';
import { checkPasswordRule, createPasswordHasher } from './passwords.ts';
import { createThrottle, limits, type Attempt, type Limit } from './throttle.ts';

export interface AccountsDeps {
  config: PlatformConfig;
  logger: Logger;
  sequelize: Sequelize;
  events: ServiceEvents;
  /** The listener of session changes reports its connection's failures here and listens again once it is over. */
  database?: DatabaseWatch;
  tokens: AccessTokens;
  requestMail: (transaction: Transaction, request: MailRequest) => Promise<void>;
  /** In-process mail without queue or event: the only way a generated password leaves the server. */
  sendMailNow: Notifications['sendMailNow'];
  verifyGoogleIdToken: GoogleVerifier;
}

/** ProvisionAccount's input. The last four only shape the mail. */
export interface ProvisionRequest {
  email: string;
  intents: string[];
  correlationId?: string;
  /** Mail an existing account's owner about the invitation (`notify_kind: existing_member`). */
  notifyExisting?: boolean;
  displayName?: string;
  centreName?: string;
  role?: string;
}

/** The mail variables of a provisioning request: its name, centre and role, when given. */
const mailContext = (input: ProvisionRequest): Record<string, string> => ({
  ...(input.displayName ? { name: input.displayName } : {}),
  ...(input.centreName ? { centreName: input.centreName } : {}),
  ...(input.role ? { role: input.role } : {}),
});

/** Where a public auth request came from (the client's address), for the throttles. */
export interface Origin {
  address: string;
}

/** What the sign-in throttle counts an account at a client address by. */
const signInSubject = (email: string, origin: Origin) => `account:${email}|address:${origin.address}`;

/** The caller of a bearer operation: the user and the session (refresh-token family) of the access token. */
export interface SignedIn {
  userId: string;
  sessionId: string;
}

/** AuthResult.user, as the web client reads it. */
export interface AuthUser {
  userId: string;
  id: string;
  email: string;
  phone: null;
  authProvider: AuthProvider;
  status: UserStatus;
  intents: string[];
  mustChangePassword: boolean;
  createdAt: string;
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

export type Accounts = ReturnType<typeof createAccounts>;

/** Who may be mailed a code of each purpose; anyone else gets the same answer and no mail. */
const otpRecipientStatus: Record<OtpPurpose, UserStatus> = {
  account_verify: 'pending_verification',
  password_reset: 'active',
};

const emailTaken = () =>
  new AppError(409, 'auth.email_taken', 'An account with this email already exists. Sign in, or reset the password.');
const invalidCredentials = () => unauthorized('auth.invalid_credentials', 'The email or password is not correct.');
const refreshInvalid = () => unauthorized('auth.refresh_invalid', 'The session has ended. Sign in again.');
const notVerified = () =>
  forbidden(
    'auth.account_not_verified',
    'Verify your email address first: enter the code we sent you, or ask for a new one.',
  );
const suspended = () => forbidden('auth.account_suspended', 'This account is suspended. Contact support.');

/** Sign-in refusals by status, after the credentials were found correct. */
const loginRefusals: Partial<Record<UserStatus, () => AppError>> = {
  pending_verification: notVerified,
  suspended,
  deactivated: invalidCredentials,
};
/** Google proves the address, so a pending account is simply activated. */
const googleRefusals: Partial<Record<UserStatus, () => AppError>> = {
  suspended,
  deactivated: () => forbidden('auth.account_deactivated', 'This account was deleted and cannot sign in.'),
};

type OtpOutcome = 'ok' | 'invalid' | 'expired' | 'exhausted';
const otpRefusals: Record<Exclude<OtpOutcome, 'ok'>, () => AppError> = {
  invalid: () =>
    unprocessable(
      'auth.otp_invalid',
      'The code is not correct. Check the latest email we sent, or ask for a new code.',
    ),
  expired: () => unprocessable('auth.otp_invalid', 'The code has expired. Ask for a new one.'),
  exhausted: () => tooManyRequests('auth.otp_attempts_exceeded', 'Too many wrong codes. Ask for a new code.'),
};

const emailShape = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
// No look-alike characters (0/O, 1/l/I): the password is typed from a mail.
const passwordAlphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const sha256 = (value: string) => crypto.createHash('sha256').update(value).digest('hex');
// Keyed by the row id so equal codes never share a hash; the code is short-lived and attempt-limited anyway.
const otpHash = (otpId: string, code: string) => crypto.createHmac('sha256', otpId).update(code).digest('hex');

/** Trimmed and lower-cased, as stored; 422 when it is not an address. */
export function normaliseEmail(raw: string, field = 'email'): string {
  const email = raw.trim().toLowerCase();
  if (email.length > 254 || !emailShape.test(email))
    throw validationFailed([{ field, issue: 'must be a valid email address' }]);
  return email;
}

/** 20 random characters (about 116 bits), drawn again until the password rule's letter and digit are there. */
function generatePassword(): string {
  for (;;) {
    const password = Array.from({ length: 20 }, () => passwordAlphabet[crypto.randomInt(passwordAlphabet.length)]).join(
      '',
    );
    if (/[A-Za-z]/.test(password) && /\d/.test(password)) return password;
  }
}

export function authUser(user: UserRow): AuthUser {
  return {
    userId: user.id,
    id: user.id,
    email: user.email,
    phone: null,
    authProvider: user.authProvider,
    status: user.status,
    intents: user.intents,
    mustChangePassword: user.mustChangePassword,
    createdAt: user.createdAt.toISOString(),
  };
}

/**
 * Accounts and sessions of the Orchestrator: registration and verification by mailed code, password
 * and Google sign-in, refresh-token rotation with reuse detection, password change and reset, and
 * account deletion. `user.created` is published when an account first becomes active, `user.deleted`
 * when it is deactivated, each in the transaction of the change.
 */
export function createAccounts(deps: AccountsDeps) {
  const { config, logger, sequelize, events, tokens } = deps;
  const { User, Otp, OtpSend, RefreshToken } = defineAccountModels(sequelize);
  const read = preparedReads(sequelize);
  /**
   * The sessions found live, kept between requests by user and session until their last refresh
   * token expires (in ms since the epoch): dropped when the database says the user's status or any
   * of their refresh tokens changed (OL migration 0013), so an ended session is refused at once.
   */
  const liveSessions = createCallerCache<number>(sequelize, {
    schema: 'ol',
    logger: logger.child({ component: 'ol-sessions' }),
    database: deps.database,
  });
  const throttle = createThrottle(sequelize);
  const passwords = createPasswordHasher(config.passwordHashCost);
  const tooMany = (retryAfter: number, what: string) =>
    tooManyRequests(
      'auth.too_many_attempts',
      `Too many ${what}. Try again in ${Math.ceil(retryAfter / 60)} minute(s).`,
      retryAfter,
    );

  /** Commits even when the outcome is a refusal (a counted OTP attempt, a revoked family), then throws it. */
  async function commitThenThrow<T>(work: (transaction: Transaction) => Promise<T | AppError>): Promise<T> {
    const result = await sequelize.transaction(work);
    if (result instanceof AppError) throw result;
    return result;
  }

  /** The one writer of an account's status (lifecycle.ts): `user.created` when it first becomes active, `user.deleted` when deleted. */
  const accounts = lifecycleWriter(accountLifecycle, {
    store: modelStore(User),
    events,
    eventData: (type, user) =>
      type === 'user.deleted'
        ? { userId: user.id, email: user.email, deletedAt: user.deactivatedAt!.toISOString() }
        : {
            userId: user.id,
            email: user.email,
            intents: user.intents,
            status: user.status,
            createdAt: user.createdAt.toISOString(),
          },
  });

  const transition = (
    transaction: Transaction,
    user: UserRow,
    action: 'verify' | 'deactivate',
    by: MoverOf<typeof accountLifecycle>,
  ) =>
    accounts.move(transaction, user, action, {
      by,
      changes: action === 'deactivate' ? { deactivatedAt: new Date() } : {},
    });

  /** Inserts a user: `register` waits for its address to be proven, `open` is active (and announced) at once. */
  async function createUser(
    transaction: Transaction,
    action: 'register' | 'open',
    by: MoverOf<typeof accountLifecycle>,
    fields: Pick<UserRow, 'email' | 'passwordHash' | 'authProvider' | 'googleSub' | 'intents' | 'mustChangePassword'>,
  ): Promise<UserRow> {
    return (await accounts.create(
      transaction,
      action,
      { id: newId(), ...fields, intents: [...new Set(fields.intents)], deactivatedAt: null },
      { by },
    ))!;
  }

  /**
   * Counts a mail request to an address against the hourly limit (429 with Retry-After once it is
   * used up). Unknown addresses count too, so the answer never tells whether an account exists.
   */
  async function reserveOtpSend(
    transaction: Transaction,
    email: string,
    purpose: OtpPurpose,
    enforceLimit = true,
  ): Promise<void> {
    await sequelize.query('SELECT pg_advisory_xact_lock(hashtext(:key))', {
      replacements: { key: `otp-send:${email}` },
      transaction,
    });
    // Older sends are dropped by the hourly prune (pruneThrottle), not by each send.
    const recent = await OtpSend.findAll({
      where: { email, createdAt: { [Op.gte]: new Date(Date.now() - 3600_000) } },
      order: [['createdAt', 'ASC']],
      transaction,
    });
    if (enforceLimit && recent.length >= config.otpSendsPerHour) {
      const retryAfter = Math.max(1, Math.ceil((recent[0]!.createdAt.getTime() + 3600_000 - Date.now()) / 1000));
      throw tooManyRequests(
        'auth.otp_rate_limited',
        'Too many codes were requested for this address. Try again later.',
        retryAfter,
      );
    }
    await OtpSend.create({ id: newId(), email, purpose, createdAt: new Date() }, { transaction });
  }

  /** Replaces the user's live code for the purpose with a new one and mails it. */
  async function issueOtp(transaction: Transaction, user: UserRow, purpose: OtpPurpose): Promise<void> {
    const code = String(crypto.randomInt(0, 10_000)).padStart(4, '0');
    const id = newId();
    await Otp.destroy({ where: { userId: user.id, purpose }, transaction });
    await Otp.create(
      {
        id,
        userId: user.id,
        purpose,
        codeHash: otpHash(id, code),
        expiresAt: new Date(Date.now() + config.otpTtlSeconds * 1000),
      },
      { transaction },
    );
    await deps.requestMail(transaction, {
      to: user.email,
      userId: user.id,
      template: purpose,
      variables: { otp: code },
    });
  }

  /** Counts a code try against the guessing budget before it is checked (throttle.ts): 429 while the account or the client address must wait. */
  async function reserveCodeTry(email: string, purpose: OtpPurpose, origin: Origin): Promise<Attempt> {
    const attempt = await throttle.reserve(purpose, [
      [`account:${email}`, limits.codePerAccount],
      [`address:${origin.address}`, limits.codePerAddress],
    ]);
    if (attempt.retryAfter) throw tooMany(attempt.retryAfter, 'wrong codes');
    return attempt;
  }

  /**
   * Checks the code of a counted try: a wrong code uses up an attempt and settles the try as a failure
   * (the caller commits it), and the owner is told by mail when the account's free tries are spent.
   */
  async function consumeOtp(
    transaction: Transaction,
    email: string,
    user: UserRow | null,
    purpose: OtpPurpose,
    code: string,
    attempt: Attempt,
  ): Promise<OtpOutcome> {
    const account = `account:${email}`;
    const outcome = await checkOtp(transaction, user, purpose, code);
    if (outcome === 'ok') await throttle.succeeded(purpose, attempt, account, transaction);
    else {
      await throttle.failed(attempt, transaction);
      if (user && (await throttle.retryAfter(purpose, [[account, limits.codePerAccount]], transaction))) {
        await deps.requestMail(transaction, {
          to: user.email,
          userId: user.id,
          template: 'security_alert',
          variables: { what: purpose === 'password_reset' ? 'password reset' : 'account verification' },
        });
      }
    }
    return outcome;
  }

  /** Checks a code; a wrong one uses up an attempt, a right one is used up itself. */
  async function checkOtp(
    transaction: Transaction,
    user: UserRow | null,
    purpose: OtpPurpose,
    code: string,
  ): Promise<OtpOutcome> {
    if (!user || user.status !== otpRecipientStatus[purpose]) return 'invalid';
    const otp = await Otp.findOne({ where: { userId: user.id, purpose }, lock: transaction.LOCK.UPDATE, transaction });
    if (!otp) return 'invalid';
    if (otp.attempts >= config.otpMaxAttempts) return 'exhausted';
    if (otp.expiresAt.getTime() <= Date.now()) return 'expired';
    const expected = Buffer.from(otp.codeHash, 'hex');
    if (!crypto.timingSafeEqual(expected, Buffer.from(otpHash(otp.id, code), 'hex'))) {
      await otp.update({ attempts: otp.attempts + 1 }, { transaction });
      return otp.attempts >= config.otpMaxAttempts ? 'exhausted' : 'invalid';
    }
    await otp.destroy({ transaction });
    return 'ok';
  }

  /** A new refresh token in a family (a new family for a new sign-in) and an access token for that session. */
  async function issueTokens(
    transaction: Transaction,
    user: UserRow,
    familyId = newId(),
    parentId: string | null = null,
  ): Promise<TokenPair> {
    const refreshToken = crypto.randomBytes(32).toString('base64url');
    const now = Date.now();
    await RefreshToken.create(
      {
        id: newId(),
        userId: user.id,
        familyId,
        parentId,
        tokenHash: sha256(refreshToken),
        expiresAt: new Date(now + config.refreshTokenTtlSeconds * 1000),
        usedAt: null,
        revokedAt: null,
        createdAt: new Date(now),
      },
      { transaction },
    );
    const accessToken = await tokens.issue({
      userId: user.id,
      email: user.email,
      intents: user.intents,
      sessionId: familyId,
      passwordChangeRequired: user.mustChangePassword,
    });
    return { accessToken, refreshToken };
  }

  async function signIn(transaction: Transaction, user: UserRow) {
    return { ...(await issueTokens(transaction, user)), user: authUser(user) };
  }

  async function revokeSessions(transaction: Transaction, where: { userId: string } | { familyId: string }) {
    await RefreshToken.update({ revokedAt: new Date() }, { where: { ...where, revokedAt: null }, transaction });
  }

  function findByEmail(email: string, transaction?: Transaction) {
    return User.findOne({ where: { email }, transaction, ...(transaction ? { lock: transaction.LOCK.UPDATE } : {}) });
  }

  return {
    /**
     * A new account waits for its address to be proven with the mailed code. Registering an address
     * whose account is still unproven replaces that registration (password, intents, code): an
     * unproven registrant holds nothing the address's owner could inherit.
     */
    async register(input: { email: string; password: string; intents: string[] }) {
      const email = normaliseEmail(input.email);
      checkPasswordRule(input.password, 'password');
      const passwordHash = await passwords.hash(input.password);
      const fields = {
        passwordHash,
        authProvider: 'password' as const,
        googleSub: null,
        intents: [...new Set(input.intents)],
        mustChangePassword: false,
      };
      try {
        const user = await sequelize.transaction(async (transaction) => {
          const pending = await findByEmail(email, transaction);
          if (pending && pending.status !== 'pending_verification') throw emailTaken();
          if (pending) {
            await pending.update(fields, { transaction });
            await reserveOtpSend(transaction, email, 'account_verify');
            await issueOtp(transaction, pending, 'account_verify');
            return pending;
          }
          const created = await createUser(transaction, 'register', 'holder', { email, ...fields });
          // The first code of a new account always goes out.
          await reserveOtpSend(transaction, email, 'account_verify', false);
          await issueOtp(transaction, created, 'account_verify');
          return created;
        });
        logger.info({ userId: user.id }, 'account registered');
        return { userId: user.id, email: user.email, status: user.status };
      } catch (err) {
        if (err instanceof UniqueConstraintError) throw emailTaken();
        throw err;
      }
    },

    /** Mails a new code when the address has an account in the right state; the same answer otherwise. */
    async sendOtp(input: { email: string; purpose: OtpPurpose }) {
      const email = normaliseEmail(input.email);
      await sequelize.transaction(async (transaction) => {
        await reserveOtpSend(transaction, email, input.purpose);
        const user = await findByEmail(email, transaction);
        if (user?.status === otpRecipientStatus[input.purpose]) await issueOtp(transaction, user, input.purpose);
      });
      return { sent: true as const };
    },

    async verifyAccount(input: { email: string; otp: string }, origin: Origin) {
      const email = normaliseEmail(input.email);
      const attempt = await reserveCodeTry(email, 'account_verify', origin);
      return commitThenThrow(async (transaction) => {
        const user = await findByEmail(email, transaction);
        const outcome = await consumeOtp(transaction, email, user, 'account_verify', input.otp, attempt);
        if (outcome !== 'ok') return otpRefusals[outcome]();
        await transition(transaction, user!, 'verify', 'holder');
        await throttle.remember(signInSubject(email, origin), transaction);
        logger.info({ userId: user!.id }, 'account verified');
        return signIn(transaction, user!);
      });
    },

    /**
     * Password sign-in, throttled per account and client address, and per client address on accounts
     * it has not signed in to before (throttle.ts). The try is counted before the password is checked
     * and settled after, so simultaneous tries cannot pass the limit.
     */
    async login(input: { email: string; password: string }, origin: Origin) {
      const email = normaliseEmail(input.email);
      const pair = signInSubject(email, origin);
      const attempt = await throttle.reserve('login', [[pair, limits.loginPerAccountAndAddress]], {
        known: pair,
        checks: [[`address:${origin.address}`, limits.loginPerAddress]],
      });
      if (attempt.retryAfter) throw tooMany(attempt.retryAfter, 'failed sign-ins');
      const user = await findByEmail(email);
      const matches = await passwords.matches(user?.passwordHash ?? null, input.password);
      if (!user || !matches) {
        await throttle.failed(attempt);
        throw invalidCredentials();
      }
      // A hash made at a lower cost than the server's (a development platform's) is made again from the
      // proven password, and stored with the sign-in, unless the password changed meanwhile.
      const upgrade =
        !loginRefusals[user.status] && (await passwords.weakerThanServer(user.passwordHash!))
          ? await passwords.hash(input.password)
          : null;
      return commitThenThrow(async (transaction) => {
        await throttle.succeeded('login', attempt, pair, transaction);
        const refusal = loginRefusals[user.status];
        if (refusal) return refusal();
        await throttle.remember(pair, transaction);
        if (upgrade)
          await User.update(
            { passwordHash: upgrade },
            { where: { id: user.id, passwordHash: user.passwordHash }, transaction },
          );
        return signIn(transaction, user);
      });
    },

    async signInWithGoogle(input: { idToken: string; intents: string[] }) {
      let identity;
      try {
        identity = await deps.verifyGoogleIdToken(input.idToken);
      } catch (err) {
        if (!(err instanceof GoogleTokenError)) throw err;
        if (err.reason === 'keys_unavailable')
          throw badGateway('auth.google_unavailable', 'Google sign-in is not reachable right now. Try again shortly.');
        throw unprocessable('auth.google_token_invalid', `Google sign-in failed: ${err.message}`);
      }
      if (!identity.emailVerified)
        throw unprocessable('auth.google_token_invalid', 'Google has not verified this email address.');
      const email = normaliseEmail(identity.email);
      const attempt = () =>
        sequelize.transaction(async (transaction) => {
          const user =
            (await User.findOne({ where: { googleSub: identity.sub }, lock: transaction.LOCK.UPDATE, transaction })) ??
            (await findByEmail(email, transaction));
          if (!user) {
            const created = await createUser(transaction, 'open', 'google', {
              email,
              passwordHash: null,
              authProvider: 'google',
              googleSub: identity.sub,
              intents: input.intents,
              mustChangePassword: false,
            });
            logger.info({ userId: created.id }, 'account created by Google sign-in');
            return { ...(await signIn(transaction, created)), isNewUser: true };
          }
          const refusal = googleRefusals[user.status];
          if (refusal) throw refusal();
          if (user.status === 'pending_verification') {
            // Google proves the address; the password was set by whoever registered it, unproven.
            user.set({ passwordHash: null, authProvider: 'google', intents: [...new Set(input.intents)] });
            await Otp.destroy({ where: { userId: user.id }, transaction });
            await transition(transaction, user, 'verify', 'google');
          }
          if (user.googleSub === null) {
            user.googleSub = identity.sub;
            await user.save({ transaction });
          }
          return { ...(await signIn(transaction, user)), isNewUser: false };
        });
      try {
        return await attempt();
      } catch (err) {
        // Two first sign-ins of one person at once: the loser finds the winner's account.
        if (err instanceof UniqueConstraintError) return attempt();
        throw err;
      }
    },

    async resetPassword(input: { email: string; otp: string; newPassword: string }, origin: Origin) {
      const email = normaliseEmail(input.email);
      checkPasswordRule(input.newPassword, 'newPassword');
      const passwordHash = await passwords.hash(input.newPassword);
      const attempt = await reserveCodeTry(email, 'password_reset', origin);
      return commitThenThrow(async (transaction) => {
        const user = await findByEmail(email, transaction);
        const outcome = await consumeOtp(transaction, email, user, 'password_reset', input.otp, attempt);
        if (outcome !== 'ok') return otpRefusals[outcome]();
        await user!.update({ passwordHash, mustChangePassword: false }, { transaction });
        await revokeSessions(transaction, { userId: user!.id });
        logger.info({ userId: user!.id }, 'password reset; every session revoked');
        return { reset: true as const };
      });
    },

    /**
     * Rotates a refresh token. Presenting one that was already rotated revokes its whole family. The
     * owner's row is share-locked first: what ends sessions (password change or reset, logout,
     * deletion) locks it before revoking, so a rotation either commits before the revocation, which
     * then sees the new token, or reads the token after it, revoked.
     */
    async refresh(refreshToken: string): Promise<TokenPair> {
      const tokenHash = sha256(refreshToken);
      const owner = await RefreshToken.findOne({ where: { tokenHash }, attributes: ['userId'] });
      if (!owner) throw refreshInvalid();
      return commitThenThrow(async (transaction) => {
        const user = await User.findByPk(owner.userId, { lock: transaction.LOCK.SHARE, transaction });
        const token = await RefreshToken.findOne({ where: { tokenHash }, lock: transaction.LOCK.UPDATE, transaction });
        if (!token || token.revokedAt || token.expiresAt.getTime() <= Date.now()) return refreshInvalid();
        if (token.usedAt) {
          await revokeSessions(transaction, { familyId: token.familyId });
          logger.warn(
            { userId: token.userId, familyId: token.familyId },
            'a rotated refresh token was presented again; its family is revoked',
          );
          return refreshInvalid();
        }
        if (user?.status !== 'active') return refreshInvalid();
        await token.update({ usedAt: new Date() }, { transaction });
        return issueTokens(transaction, user, token.familyId, token.id);
      });
    },

    async logout(caller: SignedIn, refreshToken: string) {
      const token = await RefreshToken.findOne({ where: { tokenHash: sha256(refreshToken) } });
      if (token?.userId === caller.userId) {
        await sequelize.transaction(async (transaction) => {
          await User.findByPk(caller.userId, { lock: transaction.LOCK.UPDATE, transaction });
          await revokeSessions(transaction, { familyId: token.familyId });
        });
      }
      return { loggedOut: true as const };
    },

    /**
     * Ends every session, the caller's included (a stolen refresh token dies with the rest, and so do
     * the tokens it produced), and returns the pair of a new session for the caller.
     */
    async changePassword(
      caller: SignedIn,
      input: { currentPassword: string; newPassword: string },
    ): Promise<TokenPair> {
      checkPasswordRule(input.newPassword, 'newPassword');
      const user = await User.findByPk(caller.userId, { rejectOnEmpty: true });
      if (!(await passwords.matches(user.passwordHash, input.currentPassword))) {
        throw unprocessable('auth.current_password_wrong', 'The current password is not correct.');
      }
      const passwordHash = await passwords.hash(input.newPassword);
      return sequelize.transaction(async (transaction) => {
        // The update locks the row before the revocation (see refresh).
        await user.update({ passwordHash, mustChangePassword: false }, { transaction });
        await revokeSessions(transaction, { userId: user.id });
        await Otp.destroy({ where: { userId: user.id, purpose: 'password_reset' }, transaction });
        logger.info({ userId: user.id }, 'password changed; every session revoked, a new one begun');
        return issueTokens(transaction, user);
      });
    },

    /** Deactivates the account: no sign-in afterwards, every session revoked, `user.deleted` published. */
    async deleteAccount(caller: SignedIn, input: { password?: string }) {
      const found = await User.findByPk(caller.userId, { rejectOnEmpty: true });
      if (found.passwordHash) {
        if (input.password === undefined) {
          throw validationFailed([
            { field: 'password', issue: 'is required to delete an account that has a password' },
          ]);
        }
        if (!(await passwords.matches(found.passwordHash, input.password))) {
          throw unprocessable('auth.current_password_wrong', 'The password is not correct.');
        }
      }
      await sequelize.transaction(async (transaction) => {
        const user = await User.findByPk(caller.userId, {
          lock: transaction.LOCK.UPDATE,
          transaction,
          rejectOnEmpty: true,
        });
        if (user.status === 'deactivated') return;
        user.passwordHash = null;
        user.googleSub = null;
        await transition(transaction, user, 'deactivate', 'holder');
        await revokeSessions(transaction, { userId: user.id });
        await Otp.destroy({ where: { userId: user.id }, transaction });
        logger.info({ userId: user.id }, 'account deleted');
      });
      return { deleted: true as const };
    },

    /**
     * Whether an access token may act right now (bearer checks inside OL): its user is active and its
     * session has not ended (logged out, revoked by a password change or reset, or by refresh reuse).
     */
    async sessionLive(userId: string, sessionId: string): Promise<boolean> {
      // On every OL request with a bearer: kept, else one prepared statement.
      const until = await liveSessions.read(
        userId,
        async () => {
          const [row] = await read<{ until: number | null }>(
            'ol.session_live',
            `SELECT (extract(epoch FROM max(r.expires_at)) * 1000)::float8 AS until FROM ol.users u JOIN ol.refresh_tokens r ON r.user_id = u.id
              WHERE u.id = $1 AND u.status = 'active' AND r.family_id = $2 AND r.revoked_at IS NULL AND r.expires_at > now()`,
            [userId, sessionId],
          );
          return row?.until ?? undefined;
        },
        sessionId,
      );
      // A session whose every refresh token has expired cannot be refreshed again: it has ended.
      return until !== undefined && until > Date.now();
    },

    /** The sessions kept live between requests: listened for from start to stop. */
    sessions: { start: liveSessions.start, stop: liveSessions.stop, settled: liveSessions.settled },

    /** Drops what the sign-in and code throttles and the code mail limit no longer read (the Orchestrator calls it hourly). */
    async pruneThrottle(): Promise<void> {
      await throttle.prune();
      await OtpSend.destroy({ where: { createdAt: { [Op.lt]: new Date(Date.now() - 3600_000) } } });
    },

    /** The user's status, or null when no user has this id. */
    async userStatus(userId: string): Promise<UserStatus | null> {
      const user = await User.findByPk(userId, { attributes: ['status'] });
      return user?.status ?? null;
    },

    /** The user's status and address, or null when no user has this id (a payment's payer). */
    async userContact(userId: string): Promise<{ status: UserStatus; email: string } | null> {
      const [user] = await read<{ status: UserStatus; email: string }>(
        'accounts.contact',
        'SELECT status, email FROM ol.users WHERE id = $1',
        [userId],
      );
      return user ?? null;
    },

    /** The accounts of some addresses (trimmed, lower case, as stored), for the platform's own services (gRPC FindAccounts). */
    async findAccounts(emails: string[]) {
      const users = await User.findAll({
        where: { email: { [Op.in]: [...new Set(emails.map((email) => email.trim().toLowerCase()))] } },
        attributes: ['id', 'email', 'status', 'mustChangePassword'],
      });
      return users.map((u) => ({
        userId: u.id,
        email: u.email,
        status: u.status,
        mustChangePassword: u.mustChangePassword,
      }));
    },

    /** userContact of several users at once, by id (users with no account are missing). */
    async userContacts(userIds: string[]): Promise<Map<string, { status: UserStatus; email: string }>> {
      if (!userIds.length) return new Map();
      const users = await User.findAll({ where: { id: [...new Set(userIds)] }, attributes: ['id', 'status', 'email'] });
      return new Map(users.map((user) => [user.id, { status: user.status, email: user.email }]));
    },

    /**
     * Get-or-create by email for the platform's own services (gRPC ProvisionAccount). An active
     * account is returned as it is, with no password change; the caller may mail the owner about why
     * (`notifyExisting`). A new account is active, with a generated password that only the mail carries
     * and that must be changed at first sign-in. An account whose address was never proven (someone
     * registered it and never entered the code) is not handed over as it is: it gets a generated
     * password like a new one, and the unproven registrant's password is gone. When calls race, the
     * unique index on the email lets one insert win; the others read the winner.
     */
    async provisionAccount(input: ProvisionRequest): Promise<{ userId: string; isNew: boolean }> {
      const email = normaliseEmail(input.email);
      const existing = await findByEmail(email);
      if (existing && existing.status !== 'pending_verification') {
        if (input.notifyExisting && existing.status === 'active') {
          await sequelize.transaction((transaction) =>
            deps.requestMail(transaction, {
              to: email,
              userId: existing.id,
              template: 'centre_invitation',
              variables: mailContext(input),
            }),
          );
        }
        return { userId: existing.id, isNew: false };
      }

      const password = generatePassword();
      const passwordHash = await passwords.hash(password);
      const credentials = {
        passwordHash,
        authProvider: 'password' as const,
        googleSub: null,
        mustChangePassword: true,
      };
      let user: UserRow;
      try {
        user = await sequelize.transaction(async (transaction) => {
          const unproven = existing && (await findByEmail(email, transaction));
          if (unproven?.status === 'pending_verification') {
            unproven.set({ ...credentials, intents: [...new Set([...unproven.intents, ...input.intents])] });
            await Otp.destroy({ where: { userId: unproven.id }, transaction });
            await transition(transaction, unproven, 'verify', 'platform');
            return unproven;
          }
          return createUser(transaction, 'open', 'platform', { email, ...credentials, intents: input.intents });
        });
      } catch (err) {
        if (!(err instanceof UniqueConstraintError)) throw err;
        const winner = await findByEmail(email);
        if (!winner) throw err;
        return { userId: winner.id, isNew: false };
      }
      const isNew = !existing;
      logger.info(
        { userId: user.id, correlationId: input.correlationId, isNew },
        isNew ? 'account provisioned' : 'an unproven registration was provisioned afresh',
      );

      // After the commit, so that only the call that set the password mails it.
      try {
        await deps.sendMailNow({
          to: email,
          userId: user.id,
          template: 'provisioned_account',
          variables: { password, ...mailContext(input) },
        });
      } catch (err) {
        // The account stays: its owner can still set a password with forgot-password. The error
        // object is not logged because a database error carries its query parameters, the password among them.
        logger.error(
          { userId: user.id, reason: err instanceof Error ? err.message : String(err) },
          'the password mail of a provisioned account failed',
        );
      }
      return { userId: user.id, isNew };
    },
  };
}
