import { readFileSync } from 'node:fs';
import {
  applyStates,
  loadStateDefinitions,
  substitute,
  type StateDefinition,
} from '../../platform/dev/provider-states.ts';
import { platformCall } from '../../platform/dev/http.ts';
import { onboard, verifiedUser, type VerifiedUser } from '../../contracts/dev-states.ts';
import { notFound } from '../../platform/http/errors.ts';
import { readFile } from 'node:fs/promises';
import { newId } from '../../platform/ids.ts';
import { projectPath } from '../../platform/paths.ts';
import type { operations } from '../../contracts/openapi/cap.ts';
import type { Handlers } from '../../platform/http/operations.ts';
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
  interview?: { actor: unknown; stage: unknown };
  centre?: boolean;
  otherUser?: boolean;
  staffMember?: { status: unknown };
  member?: { role: unknown; status: unknown; centres: unknown };
  toModerate?: boolean;
  awardingBodyAdmin?: boolean;
  thirdPartyReportTemplate?: boolean;
  assessorMarket?: { requested: unknown; applied: unknown };
  retainedRequest?: { approved: unknown };
  evidence?: boolean;
  verification?: { step: unknown };
}

/** A sandbox NIN that verifies (README, "Identity checks"). */
const verifyingNin = '10000000001';
const newAddress = () => `pact+${newId().toLowerCase()}@example.test`;

/**
 * What the states set straight, where no API of a user does (an admin's approval, a platform role) or
 * where driving every step would only make them slow: each is the owning module's own function.
 */
export interface StateLevers {
  /** A centre approved, as a platform admin's approve does it (centres). */
  approveCentre(centreId: string): Promise<void>;
  /** An assessor approved, as a platform admin's approve does it (assessors). */
  approveAssessor(assessorId: string): Promise<void>;
  /** The user's assessor profile id, or null (assessors). */
  assessorIdOf(userId: string): Promise<string | null>;
  /** Whether the centre retains the user as an assessor (assessors). */
  retains(centreId: string, userId: string): Promise<boolean>;
  /** The platform_admin role, which no API grants (people). */
  grantPlatformAdmin(user: { userId: string; email: string }): Promise<void>;
  /** An application placed at its interview without the moves before it (applications). */
  placeAtInterview(applicationId: string): Promise<void>;
}

/**
 * CAP's provider states for contract tests (development mode only): verified users with onboardings
 * at a given stage, a verified identity, centres with their super admin and staff, and platform
 * admins. Defined in fixtures/states/cap.yaml. Accounts come from the Orchestrator's own "a verified
 * user" state and everything else from CAP's public API, all over HTTP; what no API of a user does
 * (the platform_admin role, an admin's approval) goes through the modules' own functions (`levers`).
 */
export function capProviderStateRoutes(
  deps: Pick<ServiceDeps, 'config' | 'peers'>,
  levers: StateLevers,
): Handlers<operations> {
  const verified = (params: { email?: unknown; password?: unknown }, intents: string[]) =>
    verifiedUser(deps.peers.url('ol'), params, intents);

  /**
   * The user's access token, renewed by signing in again when it has under two minutes left: the people
   * states share live longer than a token (ACCESS_TOKEN_TTL_SECONDS).
   */
  async function liveToken(user: VerifiedUser): Promise<string> {
    const { exp } = JSON.parse(Buffer.from(user.accessToken.split('.')[1]!, 'base64url').toString()) as { exp: number };
    if (exp * 1000 - Date.now() > 120_000) return user.accessToken;
    user.accessToken = (
      await platformCall(deps.peers.url('ol'), 'POST', '/auth/login', {
        body: { email: user.email, password: user.password },
      })
    ).data.accessToken;
    return user.accessToken;
  }

  /** CAP's API as this user. */
  const capAs =
    (user: VerifiedUser) => async (method: Method, path: string, body?: unknown, headers?: Record<string, string>) =>
      platformCall(deps.peers.url('cap'), method, path, { body, token: await liveToken(user), headers });

  const onboardAt = (user: VerifiedUser, personas: string[], stage: string) =>
    onboard('cap', deps.peers.url('cap'), user, personas, stage);

  /** The centre this super admin's submitted onboarding created, and their own staff record there. */
  async function ownCentre(user: VerifiedUser) {
    const cap = capAs(user);
    const centreId: string = (await cap('GET', '/me')).data.centres[0].centreId;
    const staff: Array<{ id: string; email: string }> = (
      await cap('GET', '/centre/staff', undefined, centreHeaders(centreId))
    ).data;
    return { centreId, superAdminStaffId: staff.find((member) => member.email === user.email)!.id };
  }

  /**
   * The approval of a centre a user onboarded: a platform admin's `POST /admin/centres/{id}/approve`,
   * written directly here (as the platform_admin role is) so that no admin account is needed.
   */
  async function approve(centreId: string): Promise<void> {
    await levers.approveCentre(centreId);
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
  async function addStaff(
    owner: VerifiedUser,
    centreId: string,
    member: VerifiedUser | string,
    role: string,
    status: string,
  ): Promise<string> {
    const cap = capAs(owner);
    const email = typeof member === 'string' ? member : member.email;
    const staffId: string = (
      await cap('POST', '/centre/staff', { name: 'Bola Ade', email, role }, centreHeaders(centreId))
    ).data.id;
    if (typeof member !== 'string') await capAs(member)('POST', `/me/invitations/${staffId}/accept`);
    if (status === 'inactive')
      await cap('PATCH', '/centre/staff', { ids: [staffId], status: 'inactive' }, centreHeaders(centreId));
    return staffId;
  }

  async function grantPlatformAdmin(user: VerifiedUser): Promise<void> {
    await capAs(user)('GET', '/me');
    await levers.grantPlatformAdmin(user);
  }

  /** The platform admin the states' own catalogue writes use, made once per platform (accounts are the slow part of a state). */
  let statesAdmin: Promise<VerifiedUser> | undefined;
  const sharedAdmin = () =>
    (statesAdmin ??= (async () => {
      const admin = await verified({}, ['cap']);
      await grantPlatformAdmin(admin);
      return admin;
    })().catch((err) => {
      statesAdmin = undefined;
      throw err;
    }));

  /** A trade of a new sector, made through the admin API by the states' own platform admin. */
  async function newTrade(): Promise<{ sectorId: string; tradeId: string }> {
    const admin = await sharedAdmin();
    const tag = newId().toLowerCase();
    const sectorId: string = (
      await capAs(admin)('POST', '/admin/sectors', {
        name: `Pact sector ${tag}`,
        description: 'A sector for contract tests.',
      })
    ).data.id;
    const tradeId: string = (await capAs(admin)('POST', '/admin/trades', { sectorId, name: `Pact trade ${tag}` })).data
      .id;
    return { sectorId, tradeId };
  }

  /**
   * The candidate's RPL application at the centre, for the trade (see newTrade), taken to a stage: draft,
   * complete (the form filled) or payment (submitted).
   */
  async function applicationOf(
    candidate: VerifiedUser,
    centreId: string,
    stage: string,
    { sectorId, tradeId }: { sectorId: string; tradeId: string },
  ) {
    const cap = capAs(candidate);
    const applicationId = (
      await cap('POST', '/applications', { type: 'RPL', sectorId, tradeId, unitIds: [], centreId }, asCandidate)
    ).data.id;
    if (stage !== 'draft') await cap('PATCH', `/applications/${applicationId}`, completeApplicationForm, asCandidate);
    if (stage === 'payment') await cap('POST', `/applications/${applicationId}/submit`, undefined, asCandidate);
    return { applicationId, sectorId, tradeId };
  }

  /** A signature file the user uploaded to the Orchestrator's storage (the one-request multipart upload). */
  async function uploadedSignature(user: VerifiedUser): Promise<string> {
    const form = new FormData();
    form.set('purpose', 'signature');
    form.set(
      'file',
      new Blob([readFileSync(projectPath('fixtures', 'files', 'passport.png'))], { type: 'image/png' }),
      'signature.png',
    );
    const res = await fetch(`${deps.peers.url('ol')}/storage/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.accessToken}` },
      body: form,
    });
    const body = (await res.json()) as { data?: { assetId: string }; error?: { code: string } };
    if (!res.ok) throw new Error(`POST /storage/upload answered ${res.status} ${body.error?.code ?? ''}`);
    return body.data!.assetId;
  }

  /**
   * What every interview state shares, made once per platform (accounts are the slow part of a state): a
   * trade, an approved assessor for each panel role, and an approved centre (with its super admin) that
   * retains them, for the states whose user is not the centre.
   */
  let panelPeople:
    | Promise<{
        trade: { sectorId: string; tradeId: string };
        assessors: Record<string, { person: VerifiedUser; id: string }>;
        centre: { owner: VerifiedUser; centreId: string };
      }>
    | undefined;
  const sharedPanelPeople = () =>
    (panelPeople ??= (async () => {
      const [trade, centre, ...assessors] = await Promise.all([
        newTrade(),
        newCentre(),
        ...panelRoles.map(() => approvedAssessorOf(undefined)),
      ]);
      for (const { person } of assessors) await retain(person, centre.owner, centre.centreId, 'any');
      return { trade, centre, assessors: Object.fromEntries(panelRoles.map((role, i) => [role, assessors[i]!])) };
    })().catch((err) => {
      panelPeople = undefined;
      throw err;
    }));

  /** `person` (a new verified user when not given) with a submitted assessor onboarding, approved as a platform admin's approve does it. */
  async function approvedAssessorOf(person: VerifiedUser | undefined) {
    person ??= await verified({}, ['cap']);
    await onboardAt(person, ['assessor'], 'submitted');
    const id = (await levers.assessorIdOf(person.userId))!;
    await levers.approveAssessor(id);
    return { person, id };
  }

  /**
   * An interview set up the way a centre does it, with `user` as the actor: an approved centre (its super
   * admin), three approved assessors it retains (Chidi leads, Ngozi votes and observes as the IV, Tunde
   * votes), a centre panel of the three and a template at a clock in 2099, and a candidate's RPL
   * application paid through the sandbox checkout (at folder arrangement). At `interview` the panel is
   * seated, the sitting booked and the folder approved. The user is new in their role each time; the
   * trade, the other assessors and (unless the user is the centre) the centre are shared between states.
   */
  async function interviewOf(user: VerifiedUser, actor: string, stage: string) {
    const centreReady = async () => {
      if (actor !== 'centre') return (await sharedPanelPeople()).centre;
      await onboardAt(user, ['centre'], 'submitted');
      const { centreId } = await ownCentre(user);
      await approve(centreId);
      return { owner: user, centreId };
    };
    const onboardedCandidate = async () => {
      const candidate = actor === 'candidate' ? user : await verified({}, ['cap']);
      await onboardAt(candidate, ['candidate'], 'submitted');
      return candidate;
    };
    const [{ owner, centreId }, shared, actorAssessor, candidate, signatureAssetId] = await Promise.all([
      centreReady(),
      sharedPanelPeople(),
      panelRoles.includes(actor) ? approvedAssessorOf(user) : undefined,
      onboardedCandidate(),
      uploadedSignature(user),
    ]);
    const assessors = panelRoles.map((role) => (role === actor ? actorAssessor! : shared.assessors[role]!));
    await Promise.all(assessors.map(({ person }) => retain(person, owner, centreId, 'any')));
    const centre = capAs(owner);
    const assessorIds = assessors.map(({ id }) => id);
    const members = [
      { assessorId: assessorIds[0], isLead: true },
      { assessorId: assessorIds[1], isObserver: true },
      { assessorId: assessorIds[2] },
    ];
    const [{ panelId, templateId }, { applicationId }] = await Promise.all([
      (async () => {
        const panelId = (
          await centre('POST', '/centre/panels', { name: 'Pact panel', members }, centreHeaders(centreId))
        ).data.id;
        const templateId = (
          await centre(
            'POST',
            '/centre/interviews',
            {
              title: 'Pact sitting',
              panelId,
              scheduledAt: '2099-01-10T09:00:00.000Z',
              mode: 'online',
              link: 'https://meet.example.test/pact',
            },
            centreHeaders(centreId),
          )
        ).data.id;
        return { panelId, templateId };
      })(),
      applicationOf(candidate, centreId, 'payment', shared.trade),
    ]);
    const paymentId = (await capAs(candidate)('POST', `/applications/${applicationId}/pay`, undefined, asCandidate))
      .data.paymentId;
    await platformCall(deps.peers.url('ol'), 'POST', `/payments/sandbox/transactions/PAY-${paymentId}/pay`, {
      body: { cardNumber: '4084 0840 8408 4081', expiry: '12/30', cvv: '408' },
    });
    for (
      let tries = 0;
      (await capAs(candidate)('GET', `/applications/${applicationId}`, undefined, asCandidate)).data.currentStageKey !==
      'folder_arrangement';
      tries++
    ) {
      if (tries > 300) throw new Error('the paid application did not reach folder arrangement');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (stage === 'interview') {
      await centre('POST', `/applications/${applicationId}/interview/panel`, { members }, centreHeaders(centreId));
      await centre(
        'POST',
        `/applications/${applicationId}/interview/schedule`,
        { scheduledAt: '2099-01-10T09:00:00.000Z', mode: 'online', link: 'https://meet.example.test/pact' },
        centreHeaders(centreId),
      );
      await centre(
        'POST',
        `/applications/${applicationId}/review`,
        { decision: 'approve', stageKey: 'folder_arrangement' },
        centreHeaders(centreId),
      );
    }
    return {
      applicationId,
      centreId,
      leadId: assessorIds[0],
      voterId: assessorIds[1],
      otherVoterId: assessorIds[2],
      panelId,
      templateId,
      signatureAssetId,
    };
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
      const result = (await cap('POST', '/identity-verification', { type: 'nin', identificationNumber: verifyingNin }))
        .data;
      if (!result.verified) throw new Error('the sandbox did not verify the test NIN');
    }
    if (creates.platformAdmin) {
      await grantPlatformAdmin(user);
      Object.assign(values, { unusedRegistrationNo: `RC-${newId()}`, unusedEmail: newAddress() });
    }
    if (creates.catalogueTrade) {
      const tag = newId().toLowerCase();
      const sector = (
        await cap('POST', '/admin/sectors', { name: `Pact sector ${tag}`, description: 'A sector for contract tests.' })
      ).data;
      const trade = (await cap('POST', '/admin/trades', { sectorId: sector.id, name: `Pact trade ${tag}` })).data;
      await cap('POST', `/admin/trades/${trade.id}/nos`, catalogueDocument);
      Object.assign(values, {
        sectorId: sector.id,
        tradeId: trade.id,
        tradeSlug: trade.slug,
        unusedSlug: `unused-${tag}`,
      });
    }
    if (creates.application) {
      const stage = String(substitute(creates.application.stage, params));
      if (!['draft', 'complete', 'payment'].includes(stage))
        throw new Error('stage must be draft, complete or payment');
      const [{ centreId }, trade] = await Promise.all([newCentre(), newTrade()]);
      Object.assign(values, await applicationOf(user, centreId, stage, trade), { centreId });
    }
    if (creates.interview) {
      const actor = String(substitute(creates.interview.actor, params));
      const stage = String(substitute(creates.interview.stage, params));
      if (!['centre', 'lead', 'voter', 'candidate'].includes(actor))
        throw new Error('actor must be centre, lead, voter or candidate');
      if (!['folder_arrangement', 'interview'].includes(stage))
        throw new Error('stage must be folder_arrangement or interview');
      Object.assign(values, await interviewOf(user, actor, stage));
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
      const [, ...centres] = await Promise.all([cap('GET', '/me'), ...Array.from({ length: count }, newCentre)]);
      for (const [i, { owner, centreId }] of centres.entries()) {
        const staffId = await addStaff(owner, centreId, user, role, status);
        if (i === 0) Object.assign(values, { centreId, staffId });
      }
    }
    if (creates.toModerate) {
      const onboarded = async (persona: string) => {
        const person = await verified({}, ['cap']);
        await onboardAt(person, [persona], 'submitted');
        return person;
      };
      const [owner, assessor] = await Promise.all([onboarded('centre'), onboarded('assessor')]);
      Object.assign(values, {
        pendingCentreId: (await ownCentre(owner)).centreId,
        pendingAssessorId: await levers.assessorIdOf(assessor.userId),
        unknownId: newId(),
      });
    }
    if (creates.thirdPartyReportTemplate) {
      // The template must be the admin's own upload: the Orchestrator's state makes the user and the file.
      const owner: VerifiedUser & { assetId: string } = await platformCall(
        deps.peers.url('ol'),
        'POST',
        '/dev/provider-states',
        { body: { state: 'a confirmed asset' } },
      );
      await grantPlatformAdmin(owner);
      await capAs(owner)('PUT', '/admin/templates', {
        templates: [{ key: 'third_party_report', assetId: owner.assetId }],
      });
      Object.assign(values, { assetId: owner.assetId });
    }
    if (creates.awardingBodyAdmin) {
      await cap('GET', '/me');
      const platformAdmin = await verified({}, ['cap']);
      await grantPlatformAdmin(platformAdmin);
      const body = (
        await capAs(platformAdmin)('POST', '/admin/awarding-bodies', {
          name: 'Pact Awarding Body',
          registrationNo: `AB-${newId()}`,
          admin: { name: 'Chidi Okafor', email: user.email },
        })
      ).data;
      const invitation = (
        (await cap('GET', '/me/invitations')).data as Array<{ id: string; organisationId: string }>
      ).find((i) => i.organisationId === body.id)!;
      await cap('POST', `/me/invitations/${invitation.id}/accept`);
      Object.assign(values, { awardingBodyId: body.id, newStaffEmail: newAddress() });
    }
    const flag = (value: unknown) => String(substitute(value, params)) === 'true';
    if (creates.assessorMarket) {
      const [{ owner, centreId }, trade] = await Promise.all([newCentre(), newTrade()]);
      const market = await assessorMarket(user, owner, centreId, trade, {
        requested: flag(creates.assessorMarket.requested),
        applied: flag(creates.assessorMarket.applied),
      });
      Object.assign(values, {
        assessorId: market.assessorId,
        sectorId: market.sectorId,
        centreId,
        jobPostingId: market.jobPostingId,
      });
    }
    if (creates.retainedRequest) {
      const [assessor, trade] = await Promise.all([
        verified({}, ['cap']).then(async (assessor) => {
          await onboardAt(assessor, ['assessor'], 'submitted');
          return assessor;
        }),
        newTrade(),
      ]);
      const centreId = String(values.centreId);
      const market = await assessorMarket(assessor, user, centreId, trade, { requested: true, applied: true });
      if (flag(creates.retainedRequest.approved))
        await cap(
          'PATCH',
          `/centre/retained-requests/${market.retainedRequestId}/approve`,
          undefined,
          centreHeaders(centreId),
        );
      Object.assign(values, {
        assessorId: market.assessorId,
        retainedRequestId: market.retainedRequestId,
        tradeId: market.tradeId,
        jobPostingId: market.jobPostingId,
        jobApplicationId: market.jobApplicationId,
      });
    }
    if (creates.evidence) Object.assign(values, await evidenceToGive(user));
    if (creates.verification)
      Object.assign(values, await verificationStep(user, String(substitute(creates.verification.step, params))));
    return values;
  }

  /**
   * The onboarded `assessor` approved, as a platform admin's approve would (written directly, as for
   * centres), working in the sector of a new trade (newTrade); the centre's open posting for that trade
   * (posted by its super admin `owner`); and, when asked, the assessor's pending request to that centre
   * and their application to the posting.
   */
  async function assessorMarket(
    assessor: VerifiedUser,
    owner: VerifiedUser,
    centreId: string,
    { sectorId, tradeId }: { sectorId: string; tradeId: string },
    wanted: { requested: boolean; applied: boolean },
  ) {
    const asAssessor = { 'x-cap-persona': 'assessor' };
    const cap = capAs(assessor);
    const assessorId: string = (await cap('GET', '/assessor/profile', undefined, asAssessor)).data.id;
    await levers.approveAssessor(assessorId);
    await cap('PUT', '/assessor/profile/sectors', { sectorIds: [sectorId] }, asAssessor);
    const posting = {
      title: 'Pact trade assessor',
      tradeId,
      slot: 2,
      deadline: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      description: 'Assess candidates of the trade.',
      requirements: ['QAA certificate'],
      duration: '3 Months',
    };
    const jobPostingId: string = (await capAs(owner)('POST', '/centre/job-postings', posting, centreHeaders(centreId)))
      .data.id;
    const retainedRequestId: string | undefined = wanted.requested
      ? (await cap('POST', '/assessor/retained-requests', { centreId, preferredRole: 'assessor' }, asAssessor)).data.id
      : undefined;
    const jobApplicationId: string | undefined = wanted.applied
      ? (await cap('POST', `/assessor/job-postings/${jobPostingId}/apply`, undefined, asAssessor)).data.id
      : undefined;
    return { assessorId, sectorId, tradeId, jobPostingId, retainedRequestId, jobApplicationId };
  }

  /**
   * A platform admin's trade whose NOS has one unit, and a submitted RPL application of `candidate` (an
   * onboarded candidate) for it at the centre.
   */
  async function submittedApplication(candidate: VerifiedUser, centreId: string) {
    const { admin } = await verificationPeople();
    const asAdmin = capAs(admin);
    const tag = newId().toLowerCase();
    const sectorId = (
      await asAdmin('POST', '/admin/sectors', {
        name: `Pact sector ${tag}`,
        description: 'A sector for contract tests.',
      })
    ).data.id;
    const tradeId = (await asAdmin('POST', '/admin/trades', { sectorId, name: `Pact trade ${tag}` })).data.id;
    await asAdmin('POST', `/admin/trades/${tradeId}/nos`, catalogueDocument);
    const cap = capAs(candidate);
    const asCandidate = { 'x-cap-persona': 'candidate' };
    const applicationId = (
      await cap('POST', '/applications', { type: 'RPL', sectorId, tradeId, unitIds: [], centreId }, asCandidate)
    ).data.id;
    await cap('PATCH', `/applications/${applicationId}`, completeApplicationForm, asCandidate);
    await cap('POST', `/applications/${applicationId}/submit`, undefined, asCandidate);
    return { admin, applicationId, sectorId, tradeId };
  }

  /** The candidate's application with a piece of general evidence, and an uploaded evidence file not used yet. */
  async function evidenceToGive(user: VerifiedUser) {
    const { centreId } = (await verificationPeople()).centre;
    const [{ applicationId, tradeId }, assetId] = await Promise.all([
      submittedApplication(user, centreId),
      uploadedEvidence(user),
    ]);
    const cap = capAs(user);
    const asCandidate = { 'x-cap-persona': 'candidate' };
    const [evidenceType] = (await cap('GET', `/trades/${tradeId}/evidence-types`)).data as string[];
    const evidenceId = (
      await cap(
        'POST',
        `/applications/${applicationId}/evidence`,
        { documentName: 'Work logbook', evidenceType, textValue: 'Week 1: block walls' },
        asCandidate,
      )
    ).data.id;
    const unitId = (await cap('GET', `/trades/${tradeId}/units`)).data[0].id;
    return { applicationId, evidenceId, evidenceType, unitId, assetId };
  }

  /** An evidence file (PNG) the user uploaded to the Orchestrator's storage, not used yet. */
  async function uploadedEvidence(user: VerifiedUser): Promise<string> {
    const form = new FormData();
    form.append('purpose', 'evidence');
    form.append(
      'file',
      new Blob([new Uint8Array(await readFile(projectPath('fixtures', 'files', 'passport.png')))], {
        type: 'image/png',
      }),
      'reference.png',
    );
    const uploaded = await fetch(`${deps.peers.url('ol')}/storage/upload`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${user.accessToken}` },
    });
    if (uploaded.status !== 201) throw new Error(`upload answered ${uploaded.status}`);
    return ((await uploaded.json()) as { data: { assetId: string } }).data.assetId;
  }

  /** An approved assessor (the admin approves through the API). */
  async function approvedAssessor(admin: VerifiedUser) {
    const assessor = await verified({}, ['cap']);
    await onboardAt(assessor, ['assessor'], 'submitted');
    const assessorId = (await levers.assessorIdOf(assessor.userId))!;
    await capAs(admin)('POST', `/admin/assessors/${assessorId}/approve`);
    return { assessor, assessorId };
  }

  /** The centre retains the assessor: their request, approved by the centre's super admin (once per centre). */
  async function retain(
    assessor: VerifiedUser,
    owner: VerifiedUser,
    centreId: string,
    preferredRole = 'internal_verifier',
  ) {
    if (await levers.retains(centreId, assessor.userId)) return;
    const requestId = (
      await capAs(assessor)(
        'POST',
        '/assessor/retained-requests',
        { centreId, preferredRole },
        { 'x-cap-persona': 'assessor' },
      )
    ).data.id;
    await capAs(owner)('PATCH', `/centre/retained-requests/${requestId}/approve`, undefined, centreHeaders(centreId));
  }

  /**
   * The people every application state shares, made once per platform (accounts are the slow part): a
   * platform admin, two approved assessors (one to verify internally, one externally) and an approved
   * centre with its super admin, where the states' candidates apply unless the user is the centre.
   */
  let people:
    | Promise<{
        admin: VerifiedUser;
        iv: { assessor: VerifiedUser; assessorId: string };
        ev: { assessor: VerifiedUser; assessorId: string };
        centre: { owner: VerifiedUser; centreId: string };
      }>
    | undefined;
  const verificationPeople = () =>
    (people ??= (async () => {
      const admin = await verified({}, ['cap']);
      await grantPlatformAdmin(admin);
      return { admin, iv: await approvedAssessor(admin), ev: await approvedAssessor(admin), centre: await newCentre() };
    })().catch((err) => {
      people = undefined;
      throw err;
    }));

  /**
   * An application taken to a verification step, for the person who acts there: the user is the centre's
   * super admin (`assign_iv`, `forward`) or its awarding body's admin (`assign_ev`, `review_ev`, `certify`).
   * The payment and the centre's folder and interview reviews are not driven: the application is placed at
   * the interview directly (as the tests do), then moved through the API.
   */
  async function verificationStep(user: VerifiedUser, step: string) {
    const steps = ['assign_iv', 'forward', 'assign_ev', 'review_ev', 'certify'];
    if (!steps.includes(step)) throw new Error(`step must be one of ${steps.join(', ')}`);
    const atCentre = step === 'assign_iv' || step === 'forward';
    const centreReady = async () => {
      if (!atCentre) return (await verificationPeople()).centre;
      await onboardAt(user, ['centre'], 'submitted');
      const { centreId } = await ownCentre(user);
      await approve(centreId);
      return { owner: user, centreId };
    };
    const onboardedCandidate = async () => {
      const candidate = await verified({}, ['cap']);
      await onboardAt(candidate, ['candidate'], 'submitted');
      return candidate;
    };
    const [{ owner, centreId }, candidate] = await Promise.all([centreReady(), onboardedCandidate()]);
    const { admin, applicationId, tradeId } = await submittedApplication(candidate, centreId);
    const { iv, ev } = await verificationPeople();
    await levers.placeAtInterview(applicationId);
    const asOwner = capAs(owner);
    const path = `/applications/${applicationId}`;
    await asOwner('POST', `${path}/review`, { decision: 'approve' }, centreHeaders(centreId));
    await retain(iv.assessor, owner, centreId);
    const memberEmail = atCentre ? newAddress() : user.email;
    if (!atCentre) await capAs(user)('GET', '/me');
    const body = (
      await capAs(admin)('POST', '/admin/awarding-bodies', {
        name: 'National Board for Technical Education',
        registrationNo: `AB-${newId()}`,
        admin: { name: 'Aisha Bello', email: memberEmail },
      })
    ).data;
    if (!atCentre) await capAs(user)('POST', `/me/invitations/${body.admin.id}/accept`);
    await capAs(admin)('PUT', `/admin/trades/${tradeId}/awarding-body`, { awardingBodyId: body.id });
    if (step === 'assign_iv') return { applicationId, assessorId: iv.assessorId };
    await asOwner('POST', `${path}/iv`, { assessorId: iv.assessorId }, centreHeaders(centreId));
    await capAs(iv.assessor)('POST', `${path}/iv/review`, { decision: 'approve' }, { 'x-cap-persona': 'assessor' });
    if (step === 'forward') return { applicationId, assessorId: iv.assessorId };
    await asOwner('POST', `${path}/forward-to-awarding-body`, undefined, centreHeaders(centreId));
    if (step === 'assign_ev') return { applicationId, assessorId: ev.assessorId };
    const asBody = { 'x-cap-persona': 'awarding_body' };
    await capAs(user)('POST', `${path}/ev`, { assessorId: ev.assessorId }, asBody);
    if (step === 'review_ev') return { applicationId, assessorId: ev.assessorId };
    await capAs(user)('POST', `${path}/ev/review`, { decision: 'approve' }, asBody);
    return { applicationId, assessorId: ev.assessorId };
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
    residentialAddress: { country: 'Nigeria', state: 'Lagos', address: '12 Allen Avenue' },
  },
  experienceAndTrade: {
    unitIds: [],
    currentOccupation: { occupation: 'Mason', yearsOfExperience: 6, employmentHistory: [] },
    reasonForSeekingRPL: 'Certification',
  },
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
          learningOutcomes: [
            {
              reference: 'LO1',
              description: 'Identify hazards',
              performanceCriteria: [{ reference: 'PC1.1', description: 'Name the hazards' }],
            },
          ],
        },
      ],
    },
  ],
};

/** The assessors of an interview state's panel, in order: the lead, the voter who observes, the other voter. */
const panelRoles = ['lead', 'voter', 'other'];

const centreHeaders = (centreId: string) => ({ 'x-cap-persona': 'centre', 'x-cap-centre-id': centreId });
const asCandidate = { 'x-cap-persona': 'candidate' };
