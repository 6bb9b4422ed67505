import { newId } from '../../server/platform/ids.ts';
import { call, sql, type JsonResponse, type TestPlatform } from './platform.ts';
import { firstSignIn, grantPlatformRole, signUp, uniqueEmail, type SignedUpUser } from './users.ts';

// Complete onboarding drafts in the shapes the real web client sends, and short ways to drive CAP.

const person = {
  personalDetails: {
    firstName: 'Ada',
    lastName: 'Obi',
    middleName: 'N',
    dob: '1990-04-12',
    gender: 'Female',
    nationality: 'Nigerian',
  },
  contactInformation: { emailAddress: 'ada@example.test', phoneNumber: { countryCode: '+234', number: '8031234567' } },
  residentialAddress: { country: 'Nigeria', state: 'Lagos', lga: 'Ikeja', address: '12 Allen Avenue' },
};

export const drafts = {
  candidate: {
    ...person,
    accessibility: { hasImpairment: false, impairment: 'None / No impairment' },
    previousAssessmentStatus: { hasCompletedPreviousAssessment: false },
  },
  centre: {
    centre: {
      centreInformation: { name: 'Lagos Skills Centre', registrationNo: 'RC-104233' },
      centreResidentialAddress: { country: 'Nigeria', state: 'Lagos', address: '3 Broad Street' },
      centreSupportInformation: {
        emailAddress: 'help@lagos-skills.test',
        phoneNumber: { countryCode: '+234', number: '8020000000' },
      },
      centreAccountDetails: { bank: 'Access Bank', accountNo: '0123456789', nameOfAccount: 'Lagos Skills Centre' },
    },
    owner: person,
  },
  assessor: {
    ...person,
    assessorDetails: { assessorNo: 'ASR-0042' },
  },
};

export type StartablePersona = keyof typeof drafts;

/** A CAP call as a signed-up user (`path` under /v1/cap). */
export function cap(
  platform: TestPlatform,
  user: SignedUpUser,
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  path: string,
  options: { json?: unknown; headers?: Record<string, string> } = {},
): Promise<JsonResponse> {
  return call(method, platform.url(`/v1/cap${path}`), { ...options, token: user.accessToken });
}

/** The complete centre draft with a registration number of its own (a number names one centre). */
export function centreDraft(registrationNo = `RC-${newId()}`) {
  return {
    ...drafts.centre,
    centre: {
      ...drafts.centre.centre,
      centreInformation: { ...drafts.centre.centre.centreInformation, registrationNo },
    },
  };
}

/** Start, save the complete draft (or the one given; a centre gets its own registration number) and submit: the persona is then held. */
export async function onboard(
  platform: TestPlatform,
  user: SignedUpUser,
  persona: StartablePersona,
  draft: object = persona === 'centre' ? centreDraft() : drafts[persona],
) {
  const started = await cap(platform, user, 'POST', '/onboarding/start', { json: { persona } });
  if (started.status !== 201) throw new Error(`start ${persona}: ${started.status} ${started.text}`);
  const saved = await cap(platform, user, 'PATCH', `/onboarding/${persona}/save`, { json: draft });
  if (saved.status !== 200) throw new Error(`save ${persona}: ${saved.status} ${saved.text}`);
  const submitted = await cap(platform, user, 'POST', `/onboarding/${persona}/submit`);
  if (submitted.status !== 200) throw new Error(`submit ${persona}: ${submitted.status} ${submitted.text}`);
  return submitted.body.data;
}

/**
 * A user who onboarded their centre and had it approved (approval is what a platform admin's
 * `POST /admin/centres/{id}/approve` does; tests of that operation are in cap-admin.test.ts).
 */
/** The headers of a call acting for a centre. */
export const asCentre = (centreId: string) => ({ 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centreId });

/** A new user who owns an approved centre. */
export async function centreWithOwner(platform: TestPlatform): Promise<{ owner: SignedUpUser; centreId: string }> {
  const owner = await signUp(platform);
  return { owner, centreId: await approvedCentreOwner(platform, owner) };
}

export async function approvedCentreOwner(platform: TestPlatform, owner: SignedUpUser): Promise<string> {
  await onboard(platform, owner, 'centre');
  const centreId = (await cap(platform, owner, 'GET', '/me')).body.data.centres[0].centreId as string;
  await sql(platform, `UPDATE cap.centres SET status = 'approved' WHERE id = $1`, [centreId]);
  return centreId;
}

/** Adds someone to a centre as its super admin `by`, and lets them in: their first CAP call makes them active. */
export async function activeStaff(
  platform: TestPlatform,
  by: SignedUpUser,
  centreId: string,
  person: { role?: string; name?: string } = {},
) {
  const email = uniqueEmail(person.role ?? 'staff');
  const added = await cap(platform, by, 'POST', '/centre/staff', {
    headers: { 'X-CAP-PERSONA': 'centre', 'X-CAP-CENTRE-ID': centreId },
    json: { name: person.name ?? 'Bola Ade', email, role: person.role ?? 'staff' },
  });
  if (added.status !== 201) throw new Error(`add staff: ${added.status} ${added.text}`);
  const member = await firstSignIn(platform, email);
  await cap(platform, member, 'GET', '/me');
  return { member, staffId: added.body.data.id as string };
}

/**
 * What an application points at: a platform admin who made a sector with one trade, and an approved
 * centre with its owner (its super admin).
 */
export async function applicationTargets(platform: TestPlatform, names: { sector: string; trade: string }) {
  const [admin, owner] = await Promise.all([signUp(platform), signUp(platform)]);
  await grantPlatformRole(platform, admin);
  const centreId = await approvedCentreOwner(platform, owner);
  const sectorId = (await cap(platform, admin, 'POST', '/admin/sectors', { json: { name: names.sector } })).body.data
    .id as string;
  const tradeId = (await cap(platform, admin, 'POST', '/admin/trades', { json: { sectorId, name: names.trade } })).body
    .data.id as string;
  return { admin, owner, centreId, sectorId, tradeId };
}

/** What the client sends on the way to submit: all three sections together. */
export const applicationForm = {
  personalInformation: {
    personalDetails: {
      firstName: 'Ada',
      lastName: 'Obi',
      dob: '1990-04-12',
      gender: 'Female',
      nationality: 'Nigerian',
    },
    contactInformation: {
      emailAddress: 'ada@example.test',
      phoneNumber: { countryCode: '+NG', number: '+2348031234567' },
    },
    residentialAddress: { country: 'Nigeria', state: 'Lagos', lga: 'Ikeja', address: '12 Allen Avenue' },
  },
  experienceAndTrade: {
    unitIds: ['Unit 1: Health & Safety Practices'],
    currentOccupation: {
      occupation: 'Bricklayer',
      yearsOfExperience: 6,
      employmentHistory: [
        {
          company: 'Lekki Builders',
          jobTitle: 'Mason',
          employmentType: 'Full-time',
          startDate: '2018-01-01',
          keyResponsibilities: 'Block work',
        },
      ],
    },
    reasonForSeekingRPL: 'To be certified for the work I do.',
    evidenceCandidateCanProvide: { workSamples: true, employmentLetter: true },
  },
  assessmentDeclaration: {
    infoProvidedIsAccurate: true,
    understandsDoesNotGuaranteeCertification: true,
    understandsThatNeedsToProvideSufficientEvidenceToDemonstrateCompetence: true,
    agreesToTermsAndPrivacyPolicy: true,
  },
};

/** A candidate (Ada Obi) with an RPL application at the targets' centre and trade, filled in; submitted unless `draft`. */
export async function candidateWithApplication(
  platform: TestPlatform,
  targets: { centreId: string; sectorId: string; tradeId: string },
  options: { draft?: boolean } = {},
) {
  const user = await signUp(platform);
  await onboard(platform, user, 'candidate');
  const headers = { 'X-CAP-PERSONA': 'candidate' };
  const made = await cap(platform, user, 'POST', '/applications', {
    headers,
    json: { type: 'RPL', unitIds: [], ...targets },
  });
  if (made.status !== 201) throw new Error(`create application: ${made.status} ${made.text}`);
  const applicationId = made.body.data.id as string;
  await cap(platform, user, 'PATCH', `/applications/${applicationId}`, { headers, json: applicationForm });
  if (!options.draft) {
    const submitted = await cap(platform, user, 'POST', `/applications/${applicationId}/submit`, { headers });
    if (submitted.status !== 200) throw new Error(`submit application: ${submitted.status} ${submitted.text}`);
  }
  return { user, applicationId };
}

/**
 * A new candidate's submitted application, placed at `stage` (in progress) the way a completed payment
 * and earlier reviews would leave it, by SQL.
 */
export async function applicationAtStage(
  platform: TestPlatform,
  target: { sectorId: string; tradeId: string; centreId: string },
  stage: string,
) {
  const { user: candidate, applicationId: id } = await candidateWithApplication(platform, target);
  await sql(platform, `UPDATE cap.applications SET current_stage_key = $2, status = 'in_progress' WHERE id = $1`, [
    id,
    stage,
  ]);
  await sql(
    platform,
    `UPDATE cap.application_stages SET status = 'in_progress', entered_at = now() WHERE application_id = $1 AND stage_key = $2`,
    [id, stage],
  );
  return { id, candidate };
}

/**
 * A candidate's RPL application moved straight to the payment stage (its form and submit are tested in
 * test/cap/applications.test.ts), and the payment it starts there.
 */
export async function applicationAtPayment(
  platform: TestPlatform,
  candidate: SignedUpUser,
  place: { centreId: string; sectorId: string; tradeId: string },
): Promise<{ applicationId: string; paymentId: string }> {
  const asCandidate = { 'X-CAP-PERSONA': 'candidate' };
  const applicationId = (
    await cap(platform, candidate, 'POST', '/applications', {
      headers: asCandidate,
      json: { type: 'RPL', sectorId: place.sectorId, tradeId: place.tradeId, unitIds: [], centreId: place.centreId },
    })
  ).body.data.id as string;
  await sql(
    platform,
    `UPDATE cap.applications SET status = 'in_progress', current_stage_key = 'payment' WHERE id = $1`,
    [applicationId],
  );
  const started = await cap(platform, candidate, 'POST', `/applications/${applicationId}/pay`, {
    headers: asCandidate,
  });
  return { applicationId, paymentId: started.body.data.paymentId as string };
}

/** The centre wallet's ledger lines of one payment, by kind (amounts in minor units, as text). */
export const paymentLedger = (platform: TestPlatform, paymentId: string) =>
  sql<{ kind: string; amount_minor: string }>(
    platform,
    'SELECT kind, amount_minor::text FROM cap.wallet_entries WHERE payment_id = $1 ORDER BY kind',
    [paymentId],
  );

/** A centre's whole ledger summed by kind: how many lines and their total (minor units, as text). */
export const centreLedger = (platform: TestPlatform, centreId: string) =>
  sql<{ kind: string; n: number; total: string }>(
    platform,
    'SELECT kind, count(*)::int AS n, sum(amount_minor)::text AS total FROM cap.wallet_entries WHERE centre_id = $1 GROUP BY kind ORDER BY kind',
    [centreId],
  );
