/**
 * `capctl certify`: each remaining stage of the application is driven by the person the platform expects
 * to act there, through the same API the clients use. Stages it cannot drive are named, never skipped.
 */
import { projectPath } from '../../server/platform/paths.ts';
import { firstSignIn, registerVerified, signIn, type SignedIn } from '../dev-accounts.ts';
import { passwordFromStdin, print, UsageError } from '../output.ts';
import { loadSeeds } from '../seeds/load.ts';
import { ApiError, CommandFailed, runCommand, type Api } from '../session.ts';
import { asProfileUser, type SignedInOptions } from './signed-in.ts';

export type CertifyOptions = SignedInOptions & {
  adminEmail?: string;
  adminPassword?: string;
  adminPasswordStdin?: boolean;
  centreEmail?: string;
  centrePassword?: string;
  centrePasswordStdin?: boolean;
};

interface ApplicationView {
  id: string;
  status: string;
  currentStageKey: string;
  centreId: string;
  tradeId: string;
  awardingBodyId: string | null;
  centre: { name: string };
  candidate: { name: string };
  trade: { name: string } | null;
}

/** The QA people `certify` makes on first use (development platform), with one known password. */
const qa = {
  password: 'Qa-verifier-pass-2024',
  internalVerifier: 'qa.internal-verifier@example.test',
  externalVerifier: 'qa.external-verifier@example.test',
  awardingBodyAdmin: 'qa.awarding-body@example.test',
  awardingBodyName: 'QA Awarding Body',
};

const person = (firstName: string, lastName: string, email: string) => ({
  personalDetails: { firstName, lastName, dob: '1985-06-01', gender: 'Prefer not to say', nationality: 'Nigerian' },
  contactInformation: { emailAddress: email, phoneNumber: { countryCode: '+234', number: '8000000000' } },
  residentialAddress: { country: 'Nigeria', state: 'Lagos', lga: 'Ikeja', address: '1 Verification Way' },
});

export async function certify(applicationId: string, given: CertifyOptions): Promise<void> {
  if (given.adminPasswordStdin && given.centrePasswordStdin)
    throw new UsageError('only one password can come from stdin');
  const options = { ...given };
  if (given.adminPasswordStdin)
    options.adminPassword = await passwordFromStdin('--admin-password', given.adminPassword !== undefined);
  if (given.centrePasswordStdin)
    options.centrePassword = await passwordFromStdin('--centre-password', given.centrePassword !== undefined);
  await runCommand(Boolean(options.json), () =>
    asProfileUser(options, async (session) => {
      const api = session.api;
      const steps: Array<{ stage: string; done: string }> = [];
      const asCandidate = { 'X-CAP-PERSONA': 'candidate' };
      const read = () =>
        session.call<ApplicationView>(
          'GET',
          `/v1/cap/applications/${encodeURIComponent(applicationId)}`,
          undefined,
          asCandidate,
        );
      const seeds = await loadSeeds([projectPath('seeds', 'people.yaml'), projectPath('seeds', 'centres.yaml')]);

      let application = await read();
      const asCentre = { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': application.centreId };
      const cap = <T>(who: SignedIn, method: string, path: string, headers: Record<string, string>, body?: unknown) =>
        api.call<T>(method, `/v1/cap${path}`, {
          token: who.accessToken,
          headers,
          ...(body === undefined ? {} : { body }),
        });

      // The people, signed in when first needed.
      const memo = <T>(make: () => Promise<T>) => {
        let made: Promise<T> | undefined;
        return () => (made ??= make());
      };
      const admin = memo(async () => {
        const seeded = seeds.platformAdmins[0];
        const email = options.adminEmail ?? seeded?.email;
        const password = options.adminPassword ?? seeded?.password;
        if (!email || !password)
          throw new CommandFailed('no platform admin to act as: give --admin-email and --admin-password');
        return (
          (await signIn(api, email, password)) ??
          fail(
            `the platform admin ${email} cannot sign in (run capctl seed first, or give --admin-email/--admin-password)`,
          )
        );
      });
      const centreStaff = memo(async () => {
        const seeded = seeds.centres.find((c) => c.name === application.centre.name)?.superAdmin;
        const email = options.centreEmail ?? seeded?.email;
        const password = options.centrePassword ?? seeded?.password;
        if (!email || !password)
          throw new CommandFailed(
            `no seeded staff of ${application.centre.name}: give --centre-email and --centre-password`,
          );
        return (
          (await signIn(api, email, password)) ?? fail(`${email} cannot sign in as staff of ${application.centre.name}`)
        );
      });
      const verifier = (email: string, retainedByCentre: boolean) =>
        memo(() =>
          qaAssessor(
            api,
            admin,
            email,
            retainedByCentre ? { centreId: application.centreId, staff: centreStaff } : undefined,
          ),
        );
      const internalVerifier = verifier(qa.internalVerifier, true);
      const externalVerifier = verifier(qa.externalVerifier, false);
      const qaBody = memo(() => qaAwardingBody(api, admin));
      /** The QA awarding body; given a trade, it becomes that trade's awarding body. */
      const awardingBody = async (forTrade?: string) => {
        const body = await qaBody();
        if (forTrade)
          await api.call('PUT', `/v1/cap/admin/trades/${forTrade}/awarding-body`, {
            token: (await admin()).accessToken,
            body: { awardingBodyId: body.id },
          });
        return body;
      };

      for (let guard = 0; guard < 20 && ['draft', 'in_progress'].includes(application.status); guard++) {
        const stage = application.currentStageKey;
        const path = `/applications/${encodeURIComponent(applicationId)}`;
        try {
          if (application.status === 'draft') {
            throw new CommandFailed(
              `application_form: the candidate fills and submits the draft first (capctl application fill/submit ${applicationId})`,
            );
          } else if (stage === 'payment') {
            const started = await session.call<{ checkoutUrl: string }>(
              'POST',
              `/v1/cap${path}/pay`,
              undefined,
              asCandidate,
            );
            const reference = /\/checkout\/([^/?#]+)/.exec(started.checkoutUrl)?.[1];
            if (!reference)
              throw new CommandFailed(`payment: the checkout URL ${started.checkoutUrl} names no sandbox reference`);
            await api.call('POST', `/v1/ol/payments/sandbox/transactions/${encodeURIComponent(reference)}/pay`, {
              body: {},
            });
            steps.push({ stage, done: `paid with the sandbox test card (${reference})` });
            application = await until(
              read,
              (a) => a.currentStageKey !== 'payment',
              'payment: the payment did not reach the application within 30 s',
            );
            continue;
          } else if (['folder_arrangement', 'interview', 'induction', 'unit_assessment'].includes(stage)) {
            const staff = await centreStaff();
            await cap(staff, 'POST', `${path}/review`, asCentre, {
              decision: 'approve',
              stageKey: stage,
              feedback: 'Approved by capctl certify',
            });
            steps.push({ stage, done: `approved by the centre (${application.centre.name})` });
          } else if (stage === 'internal_verification') {
            const iv = await internalVerifier();
            await cap(await centreStaff(), 'POST', `${path}/iv`, asCentre, { assessorId: iv.assessorId });
            await cap(
              iv.user,
              'POST',
              `${path}/iv/review`,
              { 'X-CAP-PERSONA': 'assessor' },
              { decision: 'approve', feedback: 'Verified by capctl certify' },
            );
            steps.push({ stage, done: `internal verifier ${qa.internalVerifier} assigned and approved` });
          } else if (stage === 'external_verification') {
            if (!application.awardingBodyId) {
              const centre = await centreStaff();
              const forward = () => cap(centre, 'POST', `${path}/forward-to-awarding-body`, asCentre);
              // A trade without an awarding body gets the QA one; a trade with one keeps it.
              await forward().catch(async (err) => {
                if (!(err instanceof ApiError && err.code === 'application.no_awarding_body')) throw err;
                await awardingBody(application.tradeId);
                return forward();
              });
              application = await read();
              steps.push({
                stage,
                done: `forwarded to the awarding body of ${application.trade?.name ?? 'the trade'}`,
              });
            }
            const body = await awardingBody();
            if (body.id !== application.awardingBodyId)
              throw new CommandFailed(
                `external_verification: forwarded to an awarding body whose people capctl certify does not have (${application.awardingBodyId})`,
              );
            const ev = await externalVerifier();
            await cap(
              body.member,
              'POST',
              `${path}/ev`,
              { 'X-CAP-PERSONA': 'awarding_body' },
              { assessorId: ev.assessorId },
            );
            await cap(
              body.member,
              'POST',
              `${path}/ev/review`,
              { 'X-CAP-PERSONA': 'awarding_body' },
              { decision: 'approve', feedback: 'Verified by capctl certify' },
            );
            steps.push({ stage, done: `external verifier ${qa.externalVerifier} assigned; approved by ${body.name}` });
          } else if (stage === 'certification') {
            const body = await awardingBody();
            const certificate = await cap<{ verificationCode: string; url: string | null }>(
              body.member,
              'POST',
              `${path}/certificate`,
              { 'X-CAP-PERSONA': 'awarding_body' },
              {},
            );
            steps.push({
              stage,
              done: `certificate issued: ${certificate.verificationCode} ${certificate.url ?? ''}`.trim(),
            });
          } else {
            throw new CommandFailed(`${stage}: capctl certify does not know how to drive this stage`);
          }
        } catch (err) {
          if (err instanceof ApiError)
            throw new CommandFailed(`${stage}: the platform refused (${err.code}): ${err.message}`);
          throw err;
        }
        application = await read();
      }
      if (application.status !== 'certified')
        throw new CommandFailed(
          `the application is ${application.status} at ${application.currentStageKey}: not certified`,
        );
      print({ application, steps }, Boolean(options.json), () =>
        [
          ...steps.map((s) => `${s.stage.padEnd(24)} ${s.done}`),
          `certified: ${application.candidate.name}, ${application.trade?.name ?? ''} at ${application.centre.name}`,
        ].join('\n'),
      );
    }),
  );
}

function fail(message: string): never {
  throw new CommandFailed(message);
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, message: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new CommandFailed(message);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Signs the QA person in, or makes their account (verified through the dev mailbox). */
async function qaAccount(api: Api, email: string): Promise<SignedIn> {
  return (await signIn(api, email, qa.password)) ?? registerVerified(api, email, qa.password);
}

/**
 * A QA assessor: onboarded, approved by the platform admin and (for an IV) retained by the centre
 * through the retained-request operations. Each step is skipped when already done.
 */
async function qaAssessor(
  api: Api,
  admin: () => Promise<SignedIn>,
  email: string,
  retainer?: { centreId: string; staff: () => Promise<SignedIn> },
) {
  const user = await qaAccount(api, email);
  const call = <T>(who: SignedIn, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    api.call<T>(method, `/v1/cap${path}`, { token: who.accessToken, headers, ...(body === undefined ? {} : { body }) });
  const mine = await call<{ onboardings: Array<{ persona: string; status: string }> }>(user, 'GET', '/onboarding/mine');
  const onboarded = mine.onboardings.some((o) => o.persona === 'assessor' && o.status === 'completed');
  if (!onboarded) {
    await call(user, 'POST', '/onboarding/start', { persona: 'assessor' }).catch((err) => {
      if (!(err instanceof ApiError && err.status === 409)) throw err;
    });
    const [first, last] = email.startsWith('qa.internal') ? ['Ivy', 'Verifier'] : ['Evan', 'Verifier'];
    await call(user, 'PATCH', '/onboarding/assessor/save', {
      ...person(first, last, email),
      assessorDetails: { assessorNo: `QA-${first.toUpperCase()}` },
    });
    await call(user, 'POST', '/onboarding/assessor/submit');
  }
  const signedInAdmin = await admin();
  const find = async (status: string) =>
    (
      await call<Array<{ id: string; userId: string }>>(
        signedInAdmin,
        'GET',
        `/admin/assessors?status=${status}&limit=100`,
      )
    ).find((a) => a.userId === user.userId);
  let profile = await find('approved');
  if (!profile) {
    profile = (await find('pending')) ?? fail(`the QA assessor ${email} has no pending profile to approve`);
    await call(signedInAdmin, 'POST', `/admin/assessors/${profile.id}/approve`);
  }
  if (retainer) {
    const asAssessor = { 'X-CAP-PERSONA': 'assessor' };
    const requests = await call<Array<{ id: string; centreId: string; status: string }>>(
      user,
      'GET',
      '/assessor/retained-requests?limit=100',
      undefined,
      asAssessor,
    );
    let request = requests.find((r) => r.centreId === retainer.centreId && ['pending', 'approved'].includes(r.status));
    request ??= await call<{ id: string; centreId: string; status: string }>(
      user,
      'POST',
      '/assessor/retained-requests',
      { centreId: retainer.centreId, preferredRole: 'internal_verifier' },
      asAssessor,
    );
    if (request.status === 'pending') {
      await call(await retainer.staff(), 'PATCH', `/centre/retained-requests/${request.id}/approve`, undefined, {
        'X-CAP-PERSONA': 'centre',
        'X-CAP-CENTRE-ID': retainer.centreId,
      });
    }
  }
  return { user, assessorId: profile.id };
}

/** The QA awarding body, made by the platform admin on first use, with its admin signed in (the mailed password first). */
async function qaAwardingBody(api: Api, admin: () => Promise<SignedIn>) {
  const signedInAdmin = await admin();
  const call = <T>(method: string, path: string, body?: unknown) =>
    api.call<T>(method, `/v1/cap${path}`, {
      token: signedInAdmin.accessToken,
      ...(body === undefined ? {} : { body }),
    });
  let body = (await call<Array<{ id: string; name: string }>>('GET', '/admin/awarding-bodies')).find(
    (b) => b.name === qa.awardingBodyName,
  );
  body ??= await call<{ id: string; name: string }>('POST', '/admin/awarding-bodies', {
    name: qa.awardingBodyName,
    registrationNo: 'QA-AB-0001',
    admin: { name: 'Quinn Assurance', email: qa.awardingBodyAdmin },
  });
  const member =
    (await signIn(api, qa.awardingBodyAdmin, qa.password)) ??
    (await firstSignIn(api, qa.awardingBodyAdmin, qa.password));
  // The first CAP call lets a new member in.
  await api.call('GET', '/v1/cap/me', { token: member.accessToken });
  return { id: body.id, name: body.name, member };
}
