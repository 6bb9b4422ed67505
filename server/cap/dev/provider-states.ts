import { applyStates, loadStateDefinitions, substitute, type StateDefinition } from '../../../fixtures/states/definitions.ts';
import { onboard, platformCall, verifiedUser, type VerifiedUser } from '../../../fixtures/states/http.ts';
import { notFound } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { Handler } from '../../platform/http/operations.ts';
import { raw } from '../../platform/http/reply.ts';
import type { ServiceDeps } from '../../platform/service.ts';

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT';

/** What a CAP state may create besides the account (fixtures/states/cap.yaml). */
interface CapCreates {
  account: { intents: string[] };
  onboardings?: { personas: unknown; stage: unknown };
  identityVerified?: boolean;
  platformAdmin?: boolean;
  adminCentre?: boolean;
  catalogueTrade?: boolean;
  application?: { stage: unknown };
  centre?: boolean;
  otherUser?: boolean;
  staffMember?: { status: unknown };
  member?: { role: unknown; status: unknown; centres: unknown };
  assessorMarket?: { requested: unknown; applied: unknown };
  retainedRequest?: { approved: unknown };
}

/** A sandbox NIN that verifies (README, "Identity checks"). */
const verifyingNin = '10000000001';
const newAddress = () => `pact+${newId().toLowerCase()}@example.test`;

/**
 * CAP's provider states for contract tests (development mode only): verified users with onboardings
 * at a given stage, a verified identity, centres with their super admin and staff, and platform
 * admins. Defined in fixtures/states/cap.yaml. Accounts come from the Orchestrator's own "a verified
 * user" state and everything else from CAP's public API, all over HTTP; only the platform_admin role,
 * which no API grants, is written to CAP's schema directly.
 */
export function capProviderStateRoutes(deps: Pick<ServiceDeps, 'config' | 'peers' | 'sequelize'>): Record<string, Handler> {
  const verified = (params: { email?: unknown; password?: unknown }, intents: string[]) => verifiedUser(deps.peers.url('ol'), params, intents);

  /** CAP's API as this user. */
  const capAs =
    (user: VerifiedUser) =>
    (method: Method, path: string, body?: unknown, headers?: Record<string, string>) =>
      platformCall(deps.peers.url('cap'), method, path, { body, token: user.accessToken, headers });

  const onboardAt = (user: VerifiedUser, personas: string[], stage: string) => onboard('cap', deps.peers.url('cap'), user, personas, stage);

  /** The centre this super admin's submitted onboarding created, and their own staff record there. */
  async function ownCentre(user: VerifiedUser) {
    const cap = capAs(user);
    const centreId: string = (await cap('GET', '/me')).data.centres[0].centreId;
    const staff: Array<{ id: string; email: string }> = (await cap('GET', '/centre/staff', undefined, centreHeaders(centreId))).data;
    return { centreId, superAdminStaffId: staff.find((member) => member.email === user.email)!.id };
  }

  /**
   * The approval of a centre a user onboarded: a platform admin's `POST /admin/centres/{id}/approve`,
   * written directly here (as the platform_admin role is) so that no admin account is needed.
   */
  async function approve(centreId: string): Promise<void> {
    await deps.sequelize.query(`UPDATE cap.centres SET status = 'approved' WHERE id = $1`, { bind: [centreId] });
  }

  /** A new user who onboarded a centre, approved, so is its super admin. */
  async function newCentre() {
    const owner = await verified({}, ['cap']);
    await onboardAt(owner, ['centre'], 'submitted');
    const centre = await ownCentre(owner);
    await approve(centre.centreId);
    return { owner, ...centre };
  }

  /** A verified user who has made a CAP call, so CAP knows them (a centre invites them, and they accept). */
  async function capUser(): Promise<VerifiedUser> {
    const user = await verified({}, ['cap']);
    await capAs(user)('GET', '/me');
    return user;
  }

  /** Adds someone who has an account (`member`, who accepts the invitation) or a new address (left pending). */
  async function addStaff(owner: VerifiedUser, centreId: string, member: VerifiedUser | string, role: string, status: string): Promise<string> {
    const cap = capAs(owner);
    const email = typeof member === 'string' ? member : member.email;
    const staffId: string = (await cap('POST', '/centre/staff', { name: 'Bola Ade', email, role }, centreHeaders(centreId))).data.id;
    if (typeof member !== 'string') await capAs(member)('POST', `/me/invitations/${staffId}/accept`);
    if (status === 'inactive') await cap('PATCH', '/centre/staff', { ids: [staffId], status: 'inactive' }, centreHeaders(centreId));
    return staffId;
  }

  async function grantPlatformAdmin(user: VerifiedUser): Promise<void> {
    await capAs(user)('GET', '/me');
    await deps.sequelize.query(
      `INSERT INTO cap.platform_role_grants (user_id, role, created_at) VALUES ($1, 'platform_admin', now()) ON CONFLICT DO NOTHING`,
      { bind: [user.userId] },
    );
  }

  async function setUp(definition: StateDefinition, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const creates = definition.creates as unknown as CapCreates;
    const user = await verified(params, creates.account.intents);
    const cap = capAs(user);
    const values: Record<string, unknown> = { ...user };
    if (creates.onboardings) {
      const personas = substitute(creates.onboardings.personas, params) as string[];
      values.onboardingId = await onboardAt(user, personas, String(substitute(creates.onboardings.stage, params)));
    }
    if (creates.identityVerified) {
      const result = (await cap('POST', '/identity-verification', { type: 'nin', identificationNumber: verifyingNin })).data;
      if (!result.verified) throw new Error('the sandbox did not verify the test NIN');
    }
    if (creates.platformAdmin) {
      await grantPlatformAdmin(user);
      Object.assign(values, { unusedRegistrationNo: `RC-${newId()}`, unusedEmail: newAddress() });
    }
    if (creates.catalogueTrade) {
      const tag = newId().toLowerCase();
      const sector = (await cap('POST', '/admin/sectors', { name: `Pact sector ${tag}`, description: 'A sector for contract tests.' })).data;
      const trade = (await cap('POST', '/admin/trades', { sectorId: sector.id, name: `Pact trade ${tag}` })).data;
      await cap('POST', `/admin/trades/${trade.id}/nos`, catalogueDocument);
      Object.assign(values, { sectorId: sector.id, tradeId: trade.id, tradeSlug: trade.slug, unusedSlug: `unused-${tag}` });
    }
    if (creates.application) {
      const stage = String(substitute(creates.application.stage, params));
      if (!['draft', 'complete', 'payment'].includes(stage)) throw new Error('stage must be draft, complete or payment');
      const admin = await verified({}, ['cap']);
      await grantPlatformAdmin(admin);
      const tag = newId().toLowerCase();
      const sectorId = (await capAs(admin)('POST', '/admin/sectors', { name: `Pact sector ${tag}`, description: 'A sector for contract tests.' })).data.id;
      const tradeId = (await capAs(admin)('POST', '/admin/trades', { sectorId, name: `Pact trade ${tag}` })).data.id;
      const { centreId } = await newCentre();
      const asCandidate = { 'x-cap-persona': 'candidate' };
      const applicationId = (await cap('POST', '/applications', { type: 'RPL', sectorId, tradeId, unitIds: [], centreId }, asCandidate)).data.id;
      if (stage !== 'draft') await cap('PATCH', `/applications/${applicationId}`, completeApplicationForm, asCandidate);
      if (stage === 'payment') await cap('POST', `/applications/${applicationId}/submit`, undefined, asCandidate);
      Object.assign(values, { applicationId, sectorId, tradeId, centreId });
    }
    if (creates.adminCentre) {
      const registrationNo = `RC-${newId()}`;
      const centre = (
        await cap('POST', '/admin/centres', {
          name: 'Port Harcourt Skills Academy',
          registrationNo,
          address: { country: 'Nigeria', state: 'Rivers', lga: 'Obio-Akpor', address: '40 Aba Road' },
          superAdmin: { name: 'Tari Briggs', email: newAddress() },
        })
      ).data;
      Object.assign(values, { centreId: centre.id, registrationNo });
    }
    if (creates.centre) {
      const centre = await ownCentre(user);
      await approve(centre.centreId);
      Object.assign(values, centre, { newStaffEmail: newAddress() });
    }
    if (creates.otherUser) values.otherEmail = (await capUser()).email;
    if (creates.staffMember) {
      const status = String(substitute(creates.staffMember.status, params));
      const member = status === 'pending' ? newAddress() : await capUser();
      values.staffId = await addStaff(user, String(values.centreId), member, 'staff', status);
      values.staffEmail = typeof member === 'string' ? member : member.email;
    }
    if (creates.member) {
      const role = String(substitute(creates.member.role, params));
      const status = String(substitute(creates.member.status, params));
      const count = Number(substitute(creates.member.centres, params));
      if (count !== 1 && count !== 2) throw new Error('centres must be 1 or 2');
      await cap('GET', '/me');
      for (let i = 0; i < count; i++) {
        const { owner, centreId } = await newCentre();
        const staffId = await addStaff(owner, centreId, user, role, status);
        if (i === 0) Object.assign(values, { centreId, staffId });
      }
    }
    const flag = (value: unknown) => String(substitute(value, params)) === 'true';
    if (creates.assessorMarket) {
      const { owner, centreId } = await newCentre();
      const market = await assessorMarket(user, owner, centreId, { requested: flag(creates.assessorMarket.requested), applied: flag(creates.assessorMarket.applied) });
      Object.assign(values, { assessorId: market.assessorId, sectorId: market.sectorId, centreId, jobPostingId: market.jobPostingId });
    }
    if (creates.retainedRequest) {
      const assessor = await verified({}, ['cap']);
      await onboardAt(assessor, ['assessor'], 'submitted');
      const centreId = String(values.centreId);
      const market = await assessorMarket(assessor, user, centreId, { requested: true, applied: true });
      if (flag(creates.retainedRequest.approved)) await cap('PATCH', `/centre/retained-requests/${market.retainedRequestId}/approve`, undefined, centreHeaders(centreId));
      Object.assign(values, { assessorId: market.assessorId, retainedRequestId: market.retainedRequestId, tradeId: market.tradeId, jobPostingId: market.jobPostingId, jobApplicationId: market.jobApplicationId });
    }
    return values;
  }

  /**
   * The onboarded `assessor` approved, as a platform admin's approve would (written directly, as for
   * centres), working in the sector of a new trade; the centre's open posting for that trade (posted by
   * its super admin `owner`); and, when asked, the assessor's pending request to that centre and their
   * application to the posting.
   */
  async function assessorMarket(assessor: VerifiedUser, owner: VerifiedUser, centreId: string, wanted: { requested: boolean; applied: boolean }) {
    const asAssessor = { 'x-cap-persona': 'assessor' };
    const cap = capAs(assessor);
    const assessorId: string = (await cap('GET', '/assessor/profile', undefined, asAssessor)).data.id;
    await deps.sequelize.query(`UPDATE cap.assessor_profiles SET status = 'approved' WHERE id = $1`, { bind: [assessorId] });
    const admin = await verified({}, ['cap']);
    await grantPlatformAdmin(admin);
    const tag = newId().toLowerCase();
    const sectorId: string = (await capAs(admin)('POST', '/admin/sectors', { name: `Pact sector ${tag}`, description: 'A sector for contract tests.' })).data.id;
    const tradeId: string = (await capAs(admin)('POST', '/admin/trades', { sectorId, name: `Pact trade ${tag}` })).data.id;
    await cap('PUT', '/assessor/profile/sectors', { sectorIds: [sectorId] }, asAssessor);
    const posting = {
      title: 'Pact trade assessor', tradeId, slot: 2, deadline: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      description: 'Assess candidates of the trade.', requirements: ['QAA certificate'], duration: '3 Months',
    };
    const jobPostingId: string = (await capAs(owner)('POST', '/centre/job-postings', posting, centreHeaders(centreId))).data.id;
    const retainedRequestId: string | undefined = wanted.requested
      ? (await cap('POST', '/assessor/retained-requests', { centreId, preferredRole: 'assessor' }, asAssessor)).data.id
      : undefined;
    const jobApplicationId: string | undefined = wanted.applied ? (await cap('POST', `/assessor/job-postings/${jobPostingId}/apply`, undefined, asAssessor)).data.id : undefined;
    return { assessorId, sectorId, tradeId, jobPostingId, retainedRequestId, jobApplicationId };
  }

  return {
    changeProviderState: async (call) => {
      if (!deps.config.devMode) throw notFound('Provider states exist only in development mode.');
      return raw(JSON.stringify(await applyStates(call.body, loadStateDefinitions('cap'), setUp)), 'application/json');
    },
  };
}

/** An RPL form as the client sends it on the way to submit: all three sections, complete. */
const completeApplicationForm = {
  personalInformation: {
    personalDetails: { firstName: 'Ada', lastName: 'Obi', dob: '1990-04-12', gender: 'Female', nationality: 'Nigerian' },
    contactInformation: { emailAddress: 'ada@example.test', phoneNumber: { countryCode: '+NG', number: '+2348031234567' } },
    residentialAddress: { country: 'Nigeria', state: 'Lagos', address: '12 Allen Avenue' },
  },
  experienceAndTrade: { unitIds: [], currentOccupation: { occupation: 'Mason', yearsOfExperience: 6, employmentHistory: [] }, reasonForSeekingRPL: 'Certification' },
  assessmentDeclaration: {
    infoProvidedIsAccurate: true,
    understandsDoesNotGuaranteeCertification: true,
    understandsThatNeedsToProvideSufficientEvidenceToDemonstrateCompetence: true,
    agreesToTermsAndPrivacyPolicy: true,
  },
};

/** The NOS of the catalogue state: level 1 with one unit. */
const catalogueDocument = {
  title: 'Pact trade (NOS)',
  levels: [
    {
      level: 1,
      purpose: 'Works safely under supervision.',
      units: [
        {
          referenceNumber: 'CAT/L1/01',
          title: 'Work safely',
          isMandatory: true,
          learningOutcomes: [{ reference: 'LO1', description: 'Identify hazards', performanceCriteria: [{ reference: 'PC1.1', description: 'Name the hazards' }] }],
        },
      ],
    },
  ],
};

const centreHeaders = (centreId: string) => ({ 'x-cap-persona': 'centre', 'x-cap-centre-id': centreId });
