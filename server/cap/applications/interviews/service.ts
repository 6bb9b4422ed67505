import { Op, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { GrpcCallError } from '../../../platform/grpc/errors.ts';
import { conflict, forbidden, notFound, unprocessable, type ErrorDetail } from '../../../platform/http/errors.ts';
import { attributesOf, Conditions, keysetInstances, keysetRows } from '../../../platform/db/keyset.ts';
import { isoTime } from '../../../platform/db/iso-time.ts';
import { jsonObject } from '../../../platform/db/json-text.ts';
import { instancesOf, preparedIn, preparedReads, savePrepared } from '../../../platform/db/prepared.ts';
import { newId } from '../../../platform/ids.ts';
import { pageRequest } from '../../../platform/http/pagination.ts';
import { JsonText } from '../../../platform/http/reply.ts';
import type { Logger } from '../../../platform/logger.ts';
import type { Application } from '../models.ts';
import type { Applications, Viewer } from '../service.ts';
import { applicationsSql } from '../queries.ts';
import { assessorsSql, type Assessors, type AssignmentRole } from '../../assessors/index.ts';
import { catalogueSql, type Catalogue } from '../../catalogue/index.ts';
import type { Centres } from '../../centres/index.ts';
import type { ActingContext, People } from '../../people/index.ts';
import type { RecommendationsClient } from '../../../contracts/lms-client.ts';
import type { OrchestratorHttp } from '../../../contracts/orchestrator-client.ts';
import {
  defineInterviewModels,
  type Appeal,
  type ApplicationInterview,
  type InterviewForm,
  type InterviewTemplate,
  type PanelSeat,
} from './models.ts';
import { checkMove, lifecycleWriter, modelStore } from '../../../platform/lifecycle.ts';
import {
  appealLifecycle,
  interviewFormLifecycle,
  interviewLifecycle,
  outcomeOf,
  panelProblems,
  schedulableStages,
  type InterviewDecision,
  type InterviewFormType,
  type InterviewMode,
  type InterviewOutcome,
  type SignatureMode,
} from './rules.ts';
import type { JsonObject } from '../../../platform/http/merge-patch.ts';

/** The schedule input of a sitting (`POST .../interview/schedule`, templates, the booking PATCH). */
export interface SittingInput {
  scheduledAt: string;
  mode: InterviewMode;
  location?: string;
  link?: string;
  useCentreAddress?: boolean;
}

/** A caller with the bearer token that proves which uploaded files are theirs. */
export interface Caller {
  userId: string;
  bearer: string;
}

/** Staff acting for a centre. */
export interface CentreActor {
  userId: string;
  centreId: string;
}

const panelRoles: AssignmentRole[] = ['panel_voter', 'iv_observer'];
const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

/**
 * Interviews of RPL applications: the facilitator, the panel (seated in `application_assessors`), the
 * sitting, the centre's panels and interview templates, the four forms, the voters' evaluations with the
 * lead's decision and outcome (which moves the application through `applications.move`), appeals and
 * gap-training recommendations (asked of the LMS over gRPC).
 */
export function createInterviews(deps: {
  sequelize: Sequelize;
  applications: Applications;
  assessors: Pick<Assessors, 'profileOf' | 'assignments' | 'cards' | 'endRoles' | 'assign'>;
  catalogue: Pick<Catalogue, 'nosContent'>;
  centres: Pick<Centres, 'find'>;
  people: Pick<People, 'users'>;
  ownsAsset: OrchestratorHttp['ownsAsset'];
  recommendations: RecommendationsClient;
  logger: Logger;
}) {
  const { sequelize, applications, assessors } = deps;
  const models = defineInterviewModels(sequelize);
  const { CentrePanel, InterviewTemplate, ApplicationInterview, InterviewForm, InterviewEvaluation, Appeal } = models;
  const read = preparedReads(sequelize);
  const interviews = lifecycleWriter(interviewLifecycle, { store: modelStore(ApplicationInterview) });
  const interviewForms = lifecycleWriter(interviewFormLifecycle, { store: modelStore(InterviewForm) });
  const resolved = (appeal: Appeal) => conflict('appeal.resolved', `The appeal is ${appeal.status} already.`);
  const appeals = lifecycleWriter(appealLifecycle, {
    store: modelStore(Appeal),
    refuse: (_refusal, appeal) => resolved(appeal!),
  });

  /** The caller's assessor profile id, or null when they have none. */
  async function profileIdOf(userId: string, transaction?: Transaction): Promise<string | null> {
    return (await assessors.profileOf(userId, transaction))?.id ?? null;
  }

  /**
   * The application when the caller may read its interview: its candidate, its centre's staff, or an
   * assessor assigned to it now (403 `auth.out_of_scope` otherwise).
   */
  async function readable(
    context: ActingContext,
    userId: string,
    applicationId: string,
    transaction?: Transaction,
  ): Promise<Application> {
    if (context.persona === 'candidate' || context.persona === 'centre') {
      return applications.visible(
        context.persona === 'centre'
          ? { persona: 'centre', userId, centreId: context.centreId }
          : { persona: 'candidate', userId },
        applicationId,
        transaction,
      );
    }
    const application = await applications.byId(applicationId, transaction);
    if (!application) throw notFound(`No application has the id ${applicationId}.`);
    const profileId = context.persona === 'assessor' ? await profileIdOf(userId, transaction) : null;
    const assigned = profileId
      ? await assessors.assignments.activeAssignments({ applicationId, assessorId: profileId }, transaction)
      : [];
    if (!assigned.length) throw forbidden('auth.out_of_scope', 'You are not assigned to this application.');
    return application;
  }

  /** An RPL application of the centre, locked, at a stage that takes a sitting (folder arrangement or interview). */
  async function schedulable(
    actor: CentreActor,
    applicationId: string,
    transaction: Transaction,
  ): Promise<Application> {
    const application = await applications.visible({ persona: 'centre', ...actor }, applicationId, transaction);
    assertSchedulable(application);
    return application;
  }

  function assertSchedulable(application: Application) {
    if (
      application.type !== 'RPL' ||
      application.status !== 'in_progress' ||
      !schedulableStages.includes(application.currentStageKey)
    ) {
      throw conflict(
        'application.not_in_stage',
        `Interviews are set up for RPL applications at folder arrangement or interview; this ${application.type} application is ${application.status} at ${application.currentStageKey}.`,
      );
    }
  }

  /** Refuses assessors the centre does not retain (or that are not approved), naming each by field. */
  async function assertRetained(
    centreId: string,
    assessorIds: string[],
    field: (index: number) => string,
    transaction?: Transaction,
  ) {
    const problems: ErrorDetail[] = [];
    for (const [index, assessorId] of assessorIds.entries()) {
      if (!(await assessors.assignments.retainedBy(centreId, assessorId, transaction)))
        problems.push({ field: field(index), issue: 'is not an approved assessor retained by this centre' });
    }
    if (problems.length)
      throw unprocessable(
        'interview.assessor_not_retained',
        'Only approved assessors the centre retains can be assigned.',
        problems,
      );
  }

  function assertPanel(members: PanelSeat[]) {
    const problems = panelProblems(members);
    if (problems.length)
      throw unprocessable(
        'interview.panel_invalid',
        'A panel is exactly 3 voters, one of them the lead, plus an IV observer who may be one of the three.',
        problems,
      );
  }

  /** The interview row of an application, made (without a sitting) when there is none yet. */
  async function interviewOf(application: Application, transaction: Transaction): Promise<ApplicationInterview> {
    const found = await ApplicationInterview.findOne({
      where: { applicationId: application.id },
      transaction,
      lock: transaction.LOCK.UPDATE,
    });
    if (found) return found;
    return (await interviews.create(
      transaction,
      'open',
      { applicationId: application.id, centreId: application.centreId, mode: null, location: null, link: null },
      { by: 'centre' },
    ))!;
  }

  /** Seats the panel on the application: the current panel's assignments end, the new seats start. */
  async function seat(application: Application, members: PanelSeat[], assignedBy: string, transaction: Transaction) {
    const interview = await interviewOf(application, transaction);
    const evaluated = await InterviewEvaluation.count({
      where: { applicationId: application.id, round: interview.round },
      transaction,
    });
    if (evaluated)
      throw conflict(
        'interview.panel_locked',
        'The panel has started evaluating this interview: it can no longer change.',
      );
    await assessors.endRoles(application.id, panelRoles, transaction);
    const rows = members.flatMap((m) => [
      ...(m.isObserver && members.length === 4
        ? []
        : [{ role: 'panel_voter' as const, lead: m.isLead, assessorId: m.assessorId }]),
      ...(m.isObserver ? [{ role: 'iv_observer' as const, lead: false, assessorId: m.assessorId }] : []),
    ]);
    await assessors.assign(
      rows.map((row) => ({ ...row, applicationId: application.id, centreId: application.centreId, assignedBy })),
      transaction,
    );
    return interview;
  }

  /** The sitting's fields checked and completed: a physical sitting has a place, an online one a link. */
  async function sittingOf(centreId: string, input: SittingInput, transaction?: Transaction) {
    const problems: ErrorDetail[] = [];
    const scheduledAt = new Date(input.scheduledAt);
    if (Number.isNaN(scheduledAt.getTime())) problems.push({ field: 'scheduledAt', issue: 'is not a date and time' });
    let location = input.location ?? null;
    if (input.mode === 'physical' && input.useCentreAddress) {
      const centre = await deps.centres.find(centreId, transaction);
      const address = (centre?.address ?? {}) as JsonObject;
      location = [address.address, address.lga, address.state, address.country].filter(Boolean).join(', ') || location;
    }
    if (input.mode === 'physical' && !location)
      problems.push({ field: 'location', issue: 'is required for a physical sitting (or useCentreAddress: true)' });
    if (input.mode === 'online' && !input.link)
      problems.push({ field: 'link', issue: 'is required for an online sitting' });
    if (problems.length) throw unprocessable('interview.schedule_invalid', 'The sitting is not complete.', problems);
    return {
      scheduledAt,
      mode: input.mode,
      location,
      link: input.link ?? null,
      useCentreAddress: input.useCentreAddress ?? false,
    };
  }

  /** The spec's Limits: a sitting made from a template is no earlier than the template's clock. */
  function assertNotBeforeClock(template: InterviewTemplate | null, scheduledAt: Date, field = 'scheduledAt') {
    if (template && scheduledAt < template.scheduledAt) {
      throw unprocessable(
        'interview.before_template_clock',
        `The sitting cannot be earlier than its template's clock (${template.scheduledAt.toISOString()}).`,
        [{ field, issue: `is before ${template.scheduledAt.toISOString()}` }],
      );
    }
  }

  /** A sitting booked by hand is not in the past. */
  function assertFuture(scheduledAt: Date) {
    if (scheduledAt.getTime() < Date.now())
      throw unprocessable('interview.schedule_in_past', 'A sitting cannot be booked in the past.', [
        { field: 'scheduledAt', issue: 'is in the past' },
      ]);
  }

  async function seatsView(seats: PanelSeat[]) {
    return seatsWithCards(seats, await assessors.cards(seats.map((s) => s.assessorId)));
  }

  function seatsWithCards(seats: PanelSeat[], cards: Awaited<ReturnType<typeof assessors.cards>>) {
    return seats.map((s) => ({
      ...s,
      name: cards.get(s.assessorId)?.name ?? '',
      sectors: cards.get(s.assessorId)?.sectors ?? [],
    }));
  }

  /** The seats of the application's current panel: voters first (lead first), then a non-voting observer. */
  async function currentSeats(applicationId: string, transaction?: Transaction): Promise<PanelSeat[]> {
    return seatsOf(await assessors.assignments.activeAssignments({ applicationId, role: panelRoles }, transaction));
  }

  /** currentSeats from the application's active panel assignments. */
  function seatsOf(rows: Array<{ assessorId: string; role: string; lead: boolean }>): PanelSeat[] {
    const voters = rows.filter((r) => r.role === 'panel_voter');
    const observers = new Set(rows.filter((r) => r.role === 'iv_observer').map((r) => r.assessorId));
    const seats = voters
      .map((v) => ({ assessorId: v.assessorId, isLead: v.lead, isObserver: observers.has(v.assessorId) }))
      .sort((a, b) => Number(b.isLead) - Number(a.isLead));
    for (const assessorId of observers)
      if (!voters.some((v) => v.assessorId === assessorId)) seats.push({ assessorId, isLead: false, isObserver: true });
    return seats;
  }

  async function panelView(interview: ApplicationInterview, applicationId: string) {
    const seats = await currentSeats(applicationId);
    return { id: interview.id, applicationId, members: await seatsView(seats) };
  }

  function scheduleView(interview: ApplicationInterview) {
    return {
      scheduledAt: interview.scheduledAt!.toISOString(),
      status: interview.status,
      mode: interview.mode,
      location: interview.location,
      link: interview.link,
      useCentreAddress: interview.useCentreAddress,
      templateId: interview.templateId,
    };
  }

  async function panelOfCentre(actor: CentreActor, panelId: string, transaction?: Transaction) {
    const panel = await CentrePanel.findOne({ where: { id: panelId, centreId: actor.centreId }, transaction });
    if (!panel)
      throw unprocessable('interview.panel_not_found', 'The centre has no panel with that id.', [
        { field: 'panelId', issue: "is not one of the centre's panels" },
      ]);
    return panel;
  }

  async function centrePanelView(panel: InstanceType<typeof CentrePanel>) {
    return {
      id: panel.id,
      name: panel.name,
      members: await seatsView(panel.members),
      createdAt: panel.createdAt.toISOString(),
    };
  }

  function templateView(template: InterviewTemplate) {
    return {
      id: template.id,
      title: template.title,
      panelId: template.panelId,
      scheduledAt: template.scheduledAt.toISOString(),
      mode: template.mode,
      location: template.location,
      link: template.link,
      useCentreAddress: template.useCentreAddress,
      createdAt: template.createdAt.toISOString(),
    };
  }

  /**
   * Bookings (sittings of the centre's applications that have a seated panel) with their candidate,
   * each as the reply's JSON text (`json`), made by PostgreSQL: the one definition of the shape.
   */
  async function bookings(
    centreId: string,
    filter: { from?: string; to?: string; applicationIds?: string[]; cursor?: string; limit: number },
  ) {
    // One statement with the assessors' condition (a seated panel): the page is filtered by it.
    const where = new Conditions()
      .add('x.centre_id = ?', centreId)
      .add('x.scheduled_at IS NOT NULL')
      .add(assessorsSql.panelSeated('x.application_id'));
    if (filter.from) where.add('x.scheduled_at >= ?', new Date(filter.from));
    if (filter.to) where.add('x.scheduled_at <= ?', new Date(filter.to));
    if (filter.applicationIds) where.add('x.application_id = ANY(?)', filter.applicationIds);
    const page = { cursor: filter.cursor, limit: filter.limit };
    // The page with each application's candidate and stage (the Application shape's), then its trade and
    // its panel's seats with their assessors' names and sectors, read once for the page (an assessor sits
    // on many of a centre's panels, a trade has many bookings): one statement whatever its length.
    const booking =
      jsonObject(`p.id, p."applicationId", p.candidate, ${catalogueSql.joinedCard('t')} AS trade, p."currentStageKey", p."scheduledAt",
      p.status, p.mode, p.location, p.link, p."useCentreAddress", p."templateId", coalesce(m.members, '[]'::json) AS members`);
    return keysetRows<{ id: string; json: string }>(read, page, {
      select: `x.id, x.scheduled_at, x.application_id AS "applicationId", ${applicationsSql.candidateCard('a')} AS candidate,
        a.trade_id AS "tradeId", a.current_stage_key AS "currentStageKey",
        ${isoTime('x.scheduled_at')} AS "scheduledAt", x.status, x.mode, x.location, x.link,
        x.use_centre_address AS "useCentreAddress", x.template_id AS "templateId"`,
      from: 'cap.application_interviews x JOIN cap.applications a ON a.id = x.application_id',
      where,
      key: 'x.scheduled_at',
      desc: false,
      around: (
        rows,
      ) => `SELECT p.id, ${booking}::text AS json FROM ${rows} p ${catalogueSql.joinTrade('t', 'p."tradeId"')}
        LEFT JOIN (${assessorsSql.panelsOf(`ARRAY(SELECT "applicationId" FROM ${rows})`)}) m ON m.application_id = p."applicationId"
        ORDER BY p.scheduled_at, p.id`,
    });
  }
  /** Booking rows as the reply's JSON array. */
  const bookingsText = (rows: Array<{ json: string }>) => JsonText.array(rows.map((row) => row.json));

  /** The caller as a voter on the application: their profile id and whether they lead (403 otherwise). */
  async function voter(userId: string, applicationId: string, transaction: Transaction) {
    const profileId = await profileIdOf(userId, transaction);
    const assigned = profileId
      ? await assessors.assignments.activeAssignments({ applicationId, assessorId: profileId }, transaction)
      : [];
    if (!assigned.length) throw forbidden('auth.out_of_scope', 'You are not assigned to this application.');
    const seat = assigned.find((a) => a.role === 'panel_voter');
    if (!seat)
      throw forbidden(
        'interview.not_a_voter',
        'Only the three voters of the panel evaluate; you observe or work on this application in another role.',
      );
    return { profileId: profileId!, lead: seat.lead };
  }

  /** The application at its interview stage with a sitting, locked. */
  async function atInterview(applicationId: string, transaction: Transaction) {
    const application = await applications.byId(applicationId, transaction, true);
    if (!application) throw notFound(`No application has the id ${applicationId}.`);
    if (application.status !== 'in_progress' || application.currentStageKey !== 'interview') {
      throw conflict(
        'application.not_in_stage',
        `The application is ${application.status} at ${application.currentStageKey}, not at its interview.`,
      );
    }
    const [interview] = await instancesOf(ApplicationInterview, 'x.application_id = $1', [applicationId], {
      transaction,
      then: 'LIMIT 1 FOR UPDATE',
    });
    if (!interview?.scheduledAt)
      throw conflict('interview.not_scheduled', 'The interview has no sitting yet: the centre schedules it first.');
    return { application, interview };
  }

  function formView(form: InterviewForm) {
    return {
      id: form.id,
      formType: form.formType,
      data: form.data,
      status: form.status,
      populatedBy: form.populatedBy,
      candidateSignatureAssetId: form.candidateSignatureAssetId,
      candidateSignedAt: iso(form.candidateSignedAt),
      signatureMode: form.signatureMode,
      typedSignatureName: form.typedSignatureName,
      updatedAt: form.updatedAt.toISOString(),
    };
  }

  function appealView(appeal: Appeal) {
    return {
      id: appeal.id,
      applicationId: appeal.applicationId,
      stageKey: appeal.stageKey,
      status: appeal.status,
      comment: appeal.comment,
      createdAt: appeal.createdAt.toISOString(),
      resolutionComment: appeal.resolutionComment,
      resolvedAt: iso(appeal.resolvedAt),
    };
  }

  /**
   * The gap units the lead names: units of the application's NOS (each other id named in a 422), only
   * with a not-yet-competent decision, kept in the NOS's order without repeats.
   */
  async function gapUnitsOf(
    application: Application,
    unitIds: string[],
    decision: InterviewDecision | null,
  ): Promise<string[]> {
    if (decision !== 'not_yet_competent') {
      throw unprocessable('interview.gap_units_invalid', 'Gap units go with a not_yet_competent decision.', [
        { field: 'gapUnitIds', issue: 'needs decision not_yet_competent' },
      ]);
    }
    const units = application.nosDocumentId ? (await deps.catalogue.nosContent(application.nosDocumentId)).units : [];
    const known = new Set(units.map((u) => u.id));
    const unknown = unitIds.map((id, i) => ({ id, i })).filter(({ id }) => !known.has(id));
    if (unknown.length) {
      throw unprocessable(
        'interview.gap_units_invalid',
        "A gap unit is not a unit of the application's NOS.",
        unknown.map(({ id, i }) => ({
          field: `gapUnitIds[${i}]`,
          issue: `${id} is not a unit of the application's NOS`,
        })),
      );
    }
    return units.filter((u) => unitIds.includes(u.id)).map((u) => u.id);
  }

  /** Gap training is open when the panel found the candidate not yet competent and the application was rejected. */
  const gapTraining = (application: Application, interview: ApplicationInterview | null) =>
    interview?.decision === 'not_yet_competent' && application.status === 'rejected';

  return {
    models,

    /** The centre assigns the application's facilitator (one at a time: the previous one's assignment ends). */
    async assignFacilitator(actor: CentreActor, applicationId: string, assessorId: string) {
      const application = await sequelize.transaction(async (transaction) => {
        const application = await applications.visible({ persona: 'centre', ...actor }, applicationId, transaction);
        if (application.status !== 'in_progress')
          throw conflict(
            'application.not_in_stage',
            `A facilitator guides an application in progress; this one is ${application.status}.`,
          );
        await assertRetained(actor.centreId, [assessorId], () => 'assessorId', transaction);
        await assessors.endRoles(applicationId, ['facilitator'], transaction);
        await assessors.assign(
          [
            {
              applicationId,
              assessorId,
              centreId: application.centreId,
              role: 'facilitator',
              assignedBy: actor.userId,
            },
          ],
          transaction,
        );
        return application;
      });
      return (await applications.present([application]))[0]!;
    },

    async panel(context: ActingContext, userId: string, applicationId: string) {
      await readable(context, userId, applicationId);
      const interview = await ApplicationInterview.findOne({ where: { applicationId } });
      if (!interview || !(await currentSeats(applicationId)).length) throw notFound('The interview has no panel yet.');
      return panelView(interview, applicationId);
    },

    /** The centre seats the application's panel: 3 voters (one lead) and an IV observer, all retained by it. */
    async setPanel(actor: CentreActor, applicationId: string, members: PanelSeat[]) {
      assertPanel(members);
      const interview = await sequelize.transaction(async (transaction) => {
        const application = await schedulable(actor, applicationId, transaction);
        await assertRetained(
          actor.centreId,
          members.map((m) => m.assessorId),
          (i) => `members[${i}].assessorId`,
          transaction,
        );
        return seat(application, members, actor.userId, transaction);
      });
      return panelView(interview, applicationId);
    },

    async schedule(context: ActingContext, userId: string, applicationId: string) {
      await readable(context, userId, applicationId);
      const interview = await ApplicationInterview.findOne({ where: { applicationId } });
      if (!interview?.scheduledAt) throw notFound('The interview has no sitting yet.');
      return scheduleView(interview);
    },

    /** The centre books (or moves) the application's sitting; one made from a template keeps to its clock. */
    async setSchedule(actor: CentreActor, applicationId: string, input: SittingInput) {
      return sequelize.transaction(async (transaction) => {
        const application = await schedulable(actor, applicationId, transaction);
        const sitting = await sittingOf(actor.centreId, input, transaction);
        const interview = await interviewOf(application, transaction);
        const template = interview.templateId
          ? await InterviewTemplate.findByPk(interview.templateId, { transaction })
          : null;
        if (template) assertNotBeforeClock(template, sitting.scheduledAt);
        else assertFuture(sitting.scheduledAt);
        await interviews.move(transaction, interview, 'schedule', { by: 'centre', changes: sitting });
        return scheduleView(interview);
      });
    },

    async listCentrePanels(centreId: string, query: Record<string, unknown>) {
      const where = new Conditions().add('x.centre_id = ?', centreId);
      const { items, meta } = await keysetInstances(read, pageRequest(query), CentrePanel, {
        from: 'cap.centre_panels x',
        where,
        key: 'x.id',
        desc: true,
      });
      return { items: await Promise.all(items.map(centrePanelView)), meta };
    },

    async createCentrePanel(actor: CentreActor, input: { name: string; members: PanelSeat[] }) {
      assertPanel(input.members);
      await assertRetained(
        actor.centreId,
        input.members.map((m) => m.assessorId),
        (i) => `members[${i}].assessorId`,
      );
      const panel = await CentrePanel.create({
        centreId: actor.centreId,
        name: input.name,
        members: input.members.map(({ assessorId, isLead, isObserver }) => ({ assessorId, isLead, isObserver })),
        createdBy: actor.userId,
      });
      return centrePanelView(panel);
    },

    /** The centre's interview templates by clock; `from`/`to` bound the clock, `scheduledAt` picks one exact clock. */
    async listTemplates(
      centreId: string,
      query: { from?: string; to?: string; scheduledAt?: string; cursor?: string; limit?: number },
    ) {
      const where = new Conditions().add('x.centre_id = ?', centreId);
      if (query.from) where.add('x.scheduled_at >= ?', new Date(query.from));
      if (query.to) where.add('x.scheduled_at <= ?', new Date(query.to));
      if (query.scheduledAt) where.add('x.scheduled_at = ?', new Date(query.scheduledAt));
      const { items, meta } = await keysetInstances(
        read,
        pageRequest(query as Record<string, unknown>),
        InterviewTemplate,
        { from: 'cap.interview_templates x', where, key: 'x.id', desc: false },
      );
      return { items: items.map(templateView), meta };
    },

    async createTemplate(actor: CentreActor, input: SittingInput & { title: string; panelId: string }) {
      await panelOfCentre(actor, input.panelId);
      const sitting = await sittingOf(actor.centreId, input);
      assertFuture(sitting.scheduledAt);
      const template = await InterviewTemplate.create({
        centreId: actor.centreId,
        panelId: input.panelId,
        title: input.title,
        ...sitting,
        createdBy: actor.userId,
      });
      return templateView(template);
    },

    /**
     * Copies the template (its panel and sitting) onto each application, all or nothing: each must be an RPL
     * application of the centre at folder arrangement or interview whose panel has not started evaluating.
     * The copy is frozen per application (later changes to one booking touch no other). `scheduledAt` moves
     * the sittings later than the template's clock, never earlier.
     */
    async scheduleFromTemplate(
      actor: CentreActor,
      templateId: string,
      input: { applicationIds: string[]; scheduledAt?: string },
    ) {
      const template = await InterviewTemplate.findOne({ where: { id: templateId, centreId: actor.centreId } });
      if (!template) throw notFound(`The centre has no interview template ${templateId}.`);
      const panel = await panelOfCentre(actor, template.panelId);
      const scheduledAt = input.scheduledAt ? new Date(input.scheduledAt) : template.scheduledAt;
      assertNotBeforeClock(template, scheduledAt);
      const ids = [...new Set(input.applicationIds)];
      await sequelize.transaction(async (transaction) => {
        await assertRetained(
          actor.centreId,
          panel.members.map((m) => m.assessorId),
          (i) => `template.panel.members[${i}].assessorId`,
          transaction,
        );
        const problems: ErrorDetail[] = [];
        const found = await applications.models.Application.findAll({
          where: { id: { [Op.in]: ids } },
          order: [['id', 'ASC']],
          transaction,
          lock: transaction.LOCK.UPDATE,
        });
        for (const [index, id] of ids.entries()) {
          const application = found.find((a) => a.id === id);
          if (!application || application.centreId !== actor.centreId)
            problems.push({ field: `applicationIds[${index}]`, issue: 'is not an application of this centre' });
          else if (
            application.type !== 'RPL' ||
            application.status !== 'in_progress' ||
            !schedulableStages.includes(application.currentStageKey)
          ) {
            problems.push({
              field: `applicationIds[${index}]`,
              issue: `is ${application.type} ${application.status} at ${application.currentStageKey}, not at folder arrangement or interview`,
            });
          }
        }
        if (problems.length)
          throw unprocessable(
            'interview.not_schedulable',
            'Every application must be an RPL application of the centre at folder arrangement or interview; nothing was scheduled.',
            problems,
          );
        for (const application of found) {
          const interview = await seat(application, panel.members, actor.userId, transaction);
          const { mode, location, link, useCentreAddress } = template;
          await interviews.move(transaction, interview, 'schedule', {
            by: 'centre',
            changes: { templateId: template.id, scheduledAt, mode, location, link, useCentreAddress },
          });
        }
      });
      return bookingsText((await bookings(actor.centreId, { applicationIds: ids, limit: 100 })).items);
    },

    async listBookings(centreId: string, query: { from?: string; to?: string; cursor?: string; limit?: number }) {
      const page = pageRequest(query as Record<string, unknown>);
      const { items, meta } = await bookings(centreId, { from: query.from, to: query.to, ...page });
      return { items: bookingsText(items), meta };
    },

    /** Reschedules one booking: only that application's sitting changes, never before its template's clock. */
    async reschedule(actor: CentreActor, bookingId: string, input: Partial<SittingInput>) {
      await sequelize.transaction(async (transaction) => {
        const interview = await ApplicationInterview.findOne({
          where: { id: bookingId, centreId: actor.centreId },
          transaction,
          lock: transaction.LOCK.UPDATE,
        });
        if (!interview?.scheduledAt) throw notFound(`The centre has no booking ${bookingId}.`);
        const application = await applications.byId(interview.applicationId, transaction, true);
        assertSchedulable(application!);
        const sitting = await sittingOf(
          actor.centreId,
          {
            scheduledAt: input.scheduledAt ?? interview.scheduledAt.toISOString(),
            mode: input.mode ?? interview.mode ?? 'physical',
            location: input.location ?? interview.location ?? undefined,
            link: input.link ?? interview.link ?? undefined,
            useCentreAddress: input.useCentreAddress ?? interview.useCentreAddress,
          },
          transaction,
        );
        const template = interview.templateId
          ? await InterviewTemplate.findByPk(interview.templateId, { transaction })
          : null;
        if (template) assertNotBeforeClock(template, sitting.scheduledAt);
        else if (input.scheduledAt) assertFuture(sitting.scheduledAt);
        await interview.update(sitting, { transaction });
      });
      const applicationIds = [(await ApplicationInterview.findByPk(bookingId))!.applicationId];
      return new JsonText((await bookings(actor.centreId, { applicationIds, limit: 1 })).items[0]!.json);
    },

    async forms(context: ActingContext, userId: string, applicationId: string) {
      await readable(context, userId, applicationId);
      const rows = await InterviewForm.findAll({
        where: { applicationId },
        order: [
          ['createdAt', 'ASC'],
          ['id', 'ASC'],
        ],
      });
      return rows.map(formView);
    },

    /** The panel's lead writes a form (403 `interview.lead_only` for anyone else); a signed form no longer changes. */
    async putForm(
      userId: string,
      applicationId: string,
      formType: InterviewFormType,
      input: { data: JsonObject; status?: 'draft' | 'completed' },
    ) {
      const form = await sequelize.transaction(async (transaction) => {
        const { profileId, lead } = await voter(userId, applicationId, transaction);
        if (!lead) throw forbidden('interview.lead_only', "Only the panel's lead writes the interview forms.");
        await atInterview(applicationId, transaction);
        const existing = await InterviewForm.findOne({
          where: { applicationId, formType },
          transaction,
          lock: transaction.LOCK.UPDATE,
        });
        if (existing?.candidateSignedAt)
          throw conflict('interview.form_signed', 'The candidate has signed this form: it no longer changes.');
        const values = { data: input.data, populatedBy: profileId };
        const action = input.status === 'completed' ? 'complete' : 'draft';
        if (!existing)
          return (await interviewForms.create(
            transaction,
            action,
            { applicationId, formType, ...values },
            { by: 'lead' },
          ))!;
        await interviewForms.move(transaction, existing, action, { by: 'lead', changes: values });
        return existing;
      });
      return formView(form);
    },

    /**
     * The candidate signs a completed form: with a file they uploaded (`upload`), their stored profile
     * signature (`default`), or their typed name (`typed`). Once.
     */
    async signoff(
      caller: Caller,
      applicationId: string,
      formType: InterviewFormType,
      input: { signatureMode: SignatureMode; signatureAssetId?: string; typedName?: string },
    ) {
      let assetId: string | null = null;
      if (input.signatureMode === 'upload') {
        if (!input.signatureAssetId)
          throw unprocessable('interview.signature_invalid', 'An uploaded signature names its asset.', [
            { field: 'signatureAssetId', issue: 'is required with signatureMode upload' },
          ]);
        if (!(await deps.ownsAsset(caller.bearer, input.signatureAssetId)))
          throw unprocessable('interview.signature_not_found', 'You have no uploaded file with that asset id.', [
            { field: 'signatureAssetId', issue: 'is not a file you uploaded' },
          ]);
        assetId = input.signatureAssetId;
      } else if (input.signatureMode === 'default') {
        const signature = await deps.people.users.signatureOf(caller.userId);
        if (!signature)
          throw unprocessable(
            'interview.signature_invalid',
            'You have no stored signature: set one (PUT /candidate/profile/signature) or sign another way.',
            [{ field: 'signatureMode', issue: 'default needs a stored signature' }],
          );
        assetId = signature;
      } else if (!input.typedName?.trim()) {
        throw unprocessable('interview.signature_invalid', 'A typed signature is your name.', [
          { field: 'typedName', issue: 'is required with signatureMode typed' },
        ]);
      }
      const form = await sequelize.transaction(async (transaction) => {
        await applications.visible({ persona: 'candidate', userId: caller.userId }, applicationId, transaction);
        const form = await InterviewForm.findOne({
          where: { applicationId, formType },
          transaction,
          lock: transaction.LOCK.UPDATE,
        });
        if (!form || form.status !== 'completed')
          throw conflict('interview.form_not_ready', "The panel's lead has not completed this form yet.");
        if (form.candidateSignedAt) throw conflict('interview.form_signed', 'You have signed this form already.');
        return form.update(
          {
            signatureMode: input.signatureMode,
            candidateSignatureAssetId: assetId,
            typedSignatureName: input.signatureMode === 'typed' ? input.typedName!.trim() : null,
            candidateSignedAt: new Date(),
          },
          { transaction },
        );
      });
      return formView(form);
    },

    /**
     * A voter evaluates (feedback and their signature), once per round and revisable until the outcome.
     * Only the lead gives the decision and the outcome (403 `interview.lead_only`); the outcome waits for
     * all three evaluations, must agree with the decision, and moves the application through `move`.
     */
    async evaluate(
      caller: Caller,
      applicationId: string,
      input: {
        feedback: string;
        signatureAssetId: string;
        decision?: InterviewDecision;
        outcome?: InterviewOutcome;
        gapUnitIds?: string[];
      },
    ) {
      const result = await sequelize.transaction(async (transaction) => {
        const { profileId, lead } = await voter(caller.userId, applicationId, transaction);
        if ((input.decision || input.outcome || input.gapUnitIds) && !lead)
          throw forbidden(
            'interview.lead_only',
            "Only the panel's lead gives the decision, the gap units and the outcome; send your feedback and signature alone.",
          );
        const { application, interview } = await atInterview(applicationId, transaction);
        const gapUnitIds = input.gapUnitIds
          ? await gapUnitsOf(
              application,
              input.gapUnitIds,
              input.decision ?? (interview.decision as InterviewDecision | null),
            )
          : undefined;
        if (!(await deps.ownsAsset(caller.bearer, input.signatureAssetId)))
          throw unprocessable(
            'interview.signature_not_found',
            'You have no uploaded file with that asset id: upload your signature first.',
            [{ field: 'signatureAssetId', issue: 'is not a file you uploaded' }],
          );
        // The voter's evaluation of this round, written again when they evaluate again.
        await preparedIn(
          transaction,
          `INSERT INTO cap.interview_evaluations (id, application_id, round, assessor_id, feedback, signature_asset_id, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (application_id, round, assessor_id) DO UPDATE SET feedback = EXCLUDED.feedback, signature_asset_id = EXCLUDED.signature_asset_id`,
          [newId(), applicationId, interview.round, profileId, input.feedback, input.signatureAssetId, new Date()],
        );
        if (input.decision)
          interview.set({
            decision: input.decision,
            decidedBy: profileId,
            decidedAt: new Date(),
            gapUnitIds: input.decision === 'competent' ? null : (gapUnitIds ?? interview.gapUnitIds),
          });
        else if (gapUnitIds) interview.set({ gapUnitIds });
        await savePrepared(interview, transaction);
        const [{ evaluations }] = (await preparedIn<{ evaluations: number }>(
          transaction,
          `SELECT count(*)::int AS evaluations FROM cap.interview_evaluations WHERE application_id = $1 AND round = $2`,
          [applicationId, interview.round],
        )) as [{ evaluations: number }];
        if (input.outcome) {
          const decision = interview.decision as InterviewDecision | null;
          if (!decision)
            throw unprocessable('interview.outcome_mismatch', 'Give the decision with (or before) the outcome.', [
              { field: 'decision', issue: 'is required for an outcome' },
            ]);
          if (outcomeOf[decision] !== input.outcome) {
            throw unprocessable(
              'interview.outcome_mismatch',
              `A ${decision} decision has the outcome ${outcomeOf[decision]}.`,
              [{ field: 'outcome', issue: `must be ${outcomeOf[decision]}` }],
            );
          }
          if (evaluations < 3)
            throw conflict(
              'interview.evaluations_pending',
              `Every voter evaluates before the outcome: ${evaluations} of 3 have.`,
            );
          await interviews.move(transaction, interview, 'complete', { by: 'lead' });
          await applications.move(application, input.outcome, 'panel', caller.userId, transaction, input.feedback);
        }
        return {
          applicationId,
          round: interview.round,
          evaluations,
          decision: interview.decision,
          status: application.status,
          currentStageKey: application.currentStageKey,
        };
      });
      return result;
    },

    /** The candidate appeals their rejected application, once at a time, while gap training is not closed. */
    async appeal(userId: string, applicationId: string, comment: string) {
      try {
        const appeal = await sequelize.transaction(async (transaction) => {
          const application = await applications.visible({ persona: 'candidate', userId }, applicationId, transaction);
          if (application.status !== 'rejected')
            throw conflict(
              'appeal.not_allowed',
              `Only a rejected application is appealed; this one is ${application.status}.`,
            );
          const interview = await ApplicationInterview.findOne({ where: { applicationId }, transaction });
          if (interview?.gapTrainingClosedAt)
            throw conflict(
              'appeal.not_allowed',
              'You closed this application for gap training: it can no longer be appealed.',
            );
          return (await appeals.create(
            transaction,
            'raise',
            { applicationId, stageKey: application.currentStageKey, comment, raisedBy: userId },
            { by: 'candidate' },
          ))!;
        });
        return appealView(appeal);
      } catch (err) {
        if (err instanceof UniqueConstraintError)
          throw conflict('appeal.already_open', 'This application has an open appeal already.');
        throw err;
      }
    },

    /** The centre resolves an open appeal: `reopen` puts the application back at the stage that rejected it (a new interview round), `dismiss` keeps the rejection. */
    async resolveAppeal(
      actor: CentreActor,
      applicationId: string,
      appealId: string,
      input: { decision: 'reopen' | 'dismiss'; comment?: string },
    ) {
      const appeal = await sequelize.transaction(async (transaction) => {
        const application = await applications.visible({ persona: 'centre', ...actor }, applicationId, transaction);
        const appeal = await Appeal.findOne({
          where: { id: appealId, applicationId },
          transaction,
          lock: transaction.LOCK.UPDATE,
        });
        if (!appeal) throw notFound(`The application has no appeal ${appealId}.`);
        if (!checkMove(appealLifecycle, appeal.status, input.decision, 'centre').ok) throw resolved(appeal);
        if (input.decision === 'reopen') {
          await applications.move(application, 'reopen', 'centre', actor.userId, transaction, input.comment ?? null);
          const interview = await ApplicationInterview.findOne({
            where: { applicationId },
            transaction,
            lock: transaction.LOCK.UPDATE,
          });
          if (interview && application.currentStageKey === 'interview') {
            await interviews.move(transaction, interview, 'reopen', {
              by: 'centre',
              changes: {
                round: interview.round + 1,
                decision: null,
                decidedBy: null,
                decidedAt: null,
                gapUnitIds: null,
              },
            });
          }
        }
        await appeals.move(transaction, appeal, input.decision, {
          by: 'centre',
          changes: { resolutionComment: input.comment ?? null, resolvedBy: actor.userId, resolvedAt: new Date() },
        });
        return appeal;
      });
      return appealView(appeal);
    },

    /**
     * Gap-training courses for an application the panel found not yet competent, asked of the LMS
     * (`lms.v1.RecommendationsService.RecommendCourses`) for the units of its trade. When the LMS cannot
     * be reached the answer says so (`lmsMode: unavailable`) with no courses; none are ever made up.
     */
    async recommendations(context: ActingContext, userId: string, applicationId: string) {
      const application = await readable(context, userId, applicationId);
      const interview = await ApplicationInterview.findOne({ where: { applicationId } });
      const open = gapTraining(application, interview);
      const closed = Boolean(interview?.gapTrainingClosedAt);
      const base = { applicationId, closeReason: 'GAP_TRAINING' as const, gapTrainingPending: open && !closed, closed };
      if (!open) return { ...base, gapUnits: [], aiProvider: 'none', lmsMode: 'not_requested', courses: [] };
      // The units the panel found not yet competent; every unit of the NOS when it named none.
      const all = application.nosDocumentId ? (await deps.catalogue.nosContent(application.nosDocumentId)).units : [];
      const named = interview!.gapUnitIds ?? [];
      const units = named.length ? all.filter((u) => named.includes(u.id)) : all;
      const gapUnits = units.map((u) => ({ unitId: u.id, title: u.title }));
      try {
        const answer = await deps.recommendations.recommendCourses({
          application_id: application.id,
          trade_id: application.tradeId,
          sector_id: application.sectorId,
          gap_units: units.map((u) => ({ unit_id: u.id, label: u.title })),
          limit: 10,
        });
        return {
          ...base,
          gapUnits,
          aiProvider: answer.provider,
          lmsMode: 'grpc',
          courses: answer.courses.map((c) => ({
            id: c.id,
            title: c.title,
            description: c.description,
            rank: c.rank,
            explanation: c.explanation,
            tradeId: c.trade_id,
            sectorId: c.sector_id,
            url: c.url,
          })),
        };
      } catch (err) {
        deps.logger.warn(
          { err: err instanceof GrpcCallError ? { code: err.code, details: err.details } : String(err) },
          'the LMS recommendations could not be had',
        );
        return { ...base, gapUnits, aiProvider: 'none', lmsMode: 'unavailable', courses: [] };
      }
    },

    /** The candidate (or the centre) closes gap training: the application stays rejected and is no longer appealed. */
    async closeRecommendations(viewer: Viewer, applicationId: string) {
      return sequelize.transaction(async (transaction) => {
        const application = await applications.visible(viewer, applicationId, transaction);
        const interview = await ApplicationInterview.findOne({
          where: { applicationId },
          transaction,
          lock: transaction.LOCK.UPDATE,
        });
        if (!gapTraining(application, interview))
          throw conflict(
            'recommendations.not_applicable',
            'Gap training follows a not-yet-competent interview outcome; this application has none.',
          );
        const open = await Appeal.count({ where: { applicationId, status: 'open' }, transaction });
        if (open)
          throw conflict('recommendations.appeal_open', 'The application has an open appeal: it is resolved first.');
        if (!interview!.gapTrainingClosedAt)
          await interview!.update({ gapTrainingClosedAt: new Date() }, { transaction });
        return {
          applicationId,
          closeReason: 'GAP_TRAINING',
          closed: true,
          closedAt: interview!.gapTrainingClosedAt!.toISOString(),
        };
      });
    },
  };
}

export type Interviews = ReturnType<typeof createInterviews>;
