import { Op, QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { Conditions, keysetRows } from '../../platform/db/keyset.ts';
import { containing } from '../../platform/db/like.ts';
import { instancesOf, preparedIn, preparedReads, savePrepared } from '../../platform/db/prepared.ts';
import type { ServiceEvents } from '../../platform/events/types.ts';
import { conflict, forbidden, notFound, unprocessable, validationFailed } from '../../platform/http/errors.ts';
import { mergePatch, missingPaths, valueAt, type JsonObject } from '../../platform/http/merge-patch.ts';
import { pageRequest } from '../../platform/http/pagination.ts';
import { assessorsSql, type Assessors } from '../assessors/index.ts';
import { catalogueSql, deadlineOf, type Catalogue } from '../catalogue/index.ts';
import { centresSql, type Centres } from '../centres/index.ts';
import {
  addressFields,
  contactInformationFields,
  personalDetailsFields,
  under,
  type ActingContext,
  type People,
} from '../people/index.ts';
import { handlerUserIdOf, staffQueues, type StaffQueue } from './handling.ts';
import { presentedAround, presentedColumns, presentedRow, type Card, type PresentedRow } from './presented.ts';
import {
  enteredStatus,
  findMove,
  stageLabels,
  stagesOf,
  type Guard,
  type Mover,
  type MoveAction,
  type StageKey,
} from './lifecycle.ts';
import { defineApplicationModels, type Application } from './models.ts';
import { newId } from '../../platform/ids.ts';
import type { ApplicationType } from './vocabulary.ts';

const declarations = [
  'infoProvidedIsAccurate',
  'understandsDoesNotGuaranteeCertification',
  'understandsThatNeedsToProvideSufficientEvidenceToDemonstrateCompetence',
  'agreesToTermsAndPrivacyPolicy',
];

/** What an RPL draft must hold before it is submitted (the `draft_complete` guard), by dotted path. */
const requiredOnSubmit = () => [
  ...under('personalInformation.personalDetails', personalDetailsFields),
  ...under('personalInformation.contactInformation', contactInformationFields),
  ...under('personalInformation.residentialAddress', addressFields),
  'experienceAndTrade.currentOccupation.occupation',
  'experienceAndTrade.currentOccupation.yearsOfExperience',
  'experienceAndTrade.reasonForSeekingRPL',
];

export interface NewApplication {
  type: ApplicationType;
  sectorId: string;
  tradeId: string;
  centreId: string;
  unitIds?: string[];
}

export interface ListQuery {
  q?: string;
  tradeId?: string;
  type?: ApplicationType;
  status?: string;
  stage?: string;
  sort?: 'submittedAt' | 'createdAt';
  order?: 'asc' | 'desc';
  interviewSchedulable?: boolean;
  ivApproved?: boolean;
  /** Only applications this assessor profile is currently assigned to (the assessor market's lists; not a wire parameter). */
  assessorId?: string;
  /** Only those this staff member (user id) handles (handling.ts). */
  handledBy?: string;
  queue?: StaffQueue;
  cursor?: string;
  limit?: number;
}

/** Who acts on an application: the candidate who owns it, or staff of its centre. */
export type Viewer = { persona: 'candidate'; userId: string } | { persona: 'centre'; userId: string; centreId: string };

/** Who may read an application's evidence too: its assigned assessors, and the awarding body it was forwarded to. */
export type Reader = Viewer | { persona: 'assessor' | 'awarding_body'; userId: string };

/** An assessor reading the applications they are currently assigned to, at one centre or any. */
export type AssessorViewer = { persona: 'assessor'; userId: string; assessorId: string; centreId?: string };

/**
 * `visible`'s rule for the readers it needs no other module for (the candidate, the centre), as an SQL
 * condition on the applications row `a` with its value bound in `where`; undefined for the others. A
 * page that reads with it shows only what `visible` lets through; an empty one says nothing, so the
 * reader's errors (404, 403) are still `visible`'s.
 */
export function ownedSql(reader: Reader, where: Conditions, a = 'a'): string | undefined {
  if (reader.persona === 'candidate') return `${a}.candidate_user_id = ${where.bind(reader.userId)}`;
  if (reader.persona === 'centre') return `${a}.centre_id = ${where.bind(reader.centreId)}`;
  return undefined;
}

export function readerOf(context: ActingContext, userId: string): Reader {
  return context.persona === 'centre'
    ? { persona: 'centre', userId, centreId: context.centreId }
    : { persona: context.persona, userId };
}

export function viewerOf(context: ActingContext, userId: string): Viewer {
  if (context.persona === 'candidate') return { persona: 'candidate', userId };
  if (context.persona === 'centre') return { persona: 'centre', userId, centreId: context.centreId };
  throw forbidden(
    'auth.persona_not_allowed',
    `Applications are read as a candidate or for a centre, not as ${context.persona}.`,
  );
}

export const certifyBypassOff = () =>
  forbidden(
    'application.certify_bypass_off',
    'Centres certify without a certificate only when CAP_CENTRE_CERTIFY_BYPASS is on; the awarding body issues the certificate.',
  );

/** The internal verifier approved the application: its stage history holds an APPROVED internal-verification move. */
const ivApprovedWhere = (applicationId: string) =>
  `EXISTS (SELECT 1 FROM cap.application_moves m WHERE m.application_id = ${applicationId} AND m.from_stage = 'internal_verification' AND m.status = 'APPROVED')`;

/**
 * Applications: the candidate's draft (made, filled, submitted) and every later move, each through
 * `move`, the one function that writes an application's stage and status (lifecycle.ts).
 */
export function createApplications(deps: {
  sequelize: Sequelize;
  events: ServiceEvents;
  /** CAP_CENTRE_CERTIFY_BYPASS: a centre may certify without a certificate (the `certify_bypass_on` guard). */
  centreCertifyBypass: boolean;
  people: Pick<People, 'users' | 'onboardings' | 'photos'>;
  catalogue: Pick<Catalogue, 'sectors' | 'trades' | 'activeTrade' | 'activeNos' | 'workflowInForce' | 'awardingBodies'>;
  centres: Pick<Centres, 'find' | 'findAll'>;
  assessors: Pick<Assessors, 'assignments' | 'cards' | 'isAssigned' | 'facilitatorOf'>;
}) {
  const { sequelize, events, people, catalogue, centres, assessors } = deps;
  const models = defineApplicationModels(sequelize);
  const { Application, ApplicationStageRow, ApplicationVersion } = models;
  const read = preparedReads(sequelize);

  /**
   * The application by id as a model instance (null when there is none), by a prepared statement;
   * locked for update in `transaction` when `lock`.
   */
  async function byId(id: string, transaction?: Transaction, lock = false): Promise<Application | null> {
    const [application] = await instancesOf(Application, 'x.id = $1', [id], {
      transaction,
      then: lock ? 'FOR UPDATE' : '',
    });
    return application ?? null;
  }

  /** The application, when the viewer may see it: 404 when there is none, 403 when it is another's. */
  async function visible(viewer: Reader, id: string, transaction?: Transaction): Promise<Application> {
    const application = await byId(id, transaction, Boolean(transaction));
    if (!application) throw notFound(`No application has the id ${id}.`);
    const mine =
      viewer.persona === 'candidate'
        ? application.candidateUserId === viewer.userId
        : viewer.persona === 'centre'
          ? application.centreId === viewer.centreId
          : viewer.persona === 'assessor'
            ? await assessors.isAssigned(application.id, viewer.userId, transaction)
            : Boolean(application.awardingBodyId) &&
              (await catalogue.awardingBodies.isActiveMember(application.awardingBodyId!, viewer.userId, transaction));
    if (!mine) throw forbidden('auth.out_of_scope', 'This application is not yours to see.');
    return application;
  }

  /** The guards of lifecycle.ts: each names the problem when it does not hold. */
  async function checkGuards(application: Application, guards: Guard[], transaction: Transaction) {
    if (guards.includes('draft_complete')) {
      const missing = [
        ...missingPaths(application.draft, requiredOnSubmit()),
        ...declarations
          .filter((d) => valueAt(application.draft, `assessmentDeclaration.${d}`) !== true)
          .map((d) => `assessmentDeclaration.${d}`),
      ];
      if (missing.length)
        throw unprocessable(
          'application.incomplete',
          `Fill in the ${missing.length} missing field(s) before submitting.`,
          missing.map((field) => ({ field, issue: 'is required' })),
        );
    }
    if (guards.includes('not_forwarded') && application.awardingBodyId) {
      throw conflict('application.already_forwarded', 'The application was forwarded to its awarding body already.');
    }
    if (
      guards.includes('forwarded_with_ev') &&
      !(await assessors.assignments.activeAssignments({ applicationId: application.id, role: 'ev' }, transaction))
        .length
    ) {
      throw conflict('application.ev_not_assigned', 'Assign an external verifier first (POST /applications/{id}/ev).');
    }
    if (guards.includes('certify_bypass_on') && !deps.centreCertifyBypass) throw certifyBypassOff();
    if (guards.includes('induction_submitted')) {
      const [sent] = await sequelize.query(`SELECT 1 FROM cap.nsq_inductions WHERE application_id = $1`, {
        type: QueryTypes.SELECT,
        bind: [application.id],
        transaction,
      });
      if (!sent) throw conflict('nsq.induction_missing', 'The candidate has not sent the induction form yet.');
    }
    if (guards.includes('units_signed_off')) {
      const [row] = await sequelize.query<{ open: number }>(
        `SELECT count(*)::int AS open FROM cap.nsq_inductions i, jsonb_array_elements_text(i.unit_ids) AS u(unit_id)
          WHERE i.application_id = $1 AND NOT EXISTS (SELECT 1 FROM cap.nsq_unit_signoffs s WHERE s.application_id = i.application_id AND s.unit_id = u.unit_id)`,
        { type: QueryTypes.SELECT, bind: [application.id], transaction },
      );
      if (row!.open > 0)
        throw conflict('nsq.units_not_signed_off', `${row!.open} unit(s) of the induction are not signed off yet.`);
    }
  }

  /**
   * The one way an application changes stage or status: the move must be in the lifecycle table for the
   * application's type, stage and mover; its guards must hold. The stage rows, the move's history row
   * and its event are written in the caller's transaction.
   */
  async function move(
    application: Application,
    action: MoveAction,
    mover: Mover,
    actorUserId: string | null,
    transaction: Transaction,
    feedback?: string | null,
  ) {
    const found = findMove(application.type, application.currentStageKey, action);
    if (
      !found ||
      !found.by.includes(mover) ||
      !(found.fromStatus ?? ['draft', 'in_progress']).includes(application.status)
    ) {
      throw conflict(
        'application.not_in_stage',
        `A ${application.type} application ${application.status === 'draft' || application.status === 'in_progress' ? `at stage ${application.currentStageKey}` : `that is ${application.status} at ${application.currentStageKey}`} cannot be moved by ${action} (by ${mover}).`,
      );
    }
    await checkGuards(application, found.guards, transaction);
    const now = new Date();
    const from = application.currentStageKey;
    const finalStatus =
      found.to === 'certified' || found.to === 'rejected' || found.to === 'withdrawn' ? found.to : undefined;
    if (found.to === 'withdrawn') {
      // Withdrawn: the stage the application stood at stays as it was, unfinished.
    } else {
      // The stage left (done, or rejected) and the one entered, in one statement. A move within the
      // stage (forwarding, reopening) changes only the stage's status; it is not done.
      const stages: Array<{ key: StageKey; status: string; entered: boolean; completedAt: Date | null }> =
        found.to === from
          ? [{ key: from, status: found.stageStatus ?? 'in_progress', entered: false, completedAt: null }]
          : [
              {
                key: from,
                status: found.to === 'rejected' ? 'rejected' : 'successful',
                entered: false,
                completedAt: now,
              },
            ];
      if (!finalStatus && found.to !== from) {
        const to = found.to as StageKey;
        stages.push({ key: to, status: enteredStatus(to), entered: true, completedAt: null });
        application.currentStageKey = to;
      }
      await preparedIn(
        transaction,
        `UPDATE cap.application_stages s SET status = u.status, completed_at = u.completed_at,
                entered_at = CASE WHEN u.entered THEN $2::timestamptz ELSE s.entered_at END
           FROM unnest($3::text[], $4::text[], $5::boolean[], $6::timestamptz[]) AS u(stage_key, status, entered, completed_at)
          WHERE s.application_id = $1 AND s.stage_key = u.stage_key`,
        [
          application.id,
          now,
          stages.map((stage) => stage.key),
          stages.map((stage) => stage.status),
          stages.map((stage) => stage.entered),
          stages.map((stage) => stage.completedAt),
        ],
      );
    }
    application.status = finalStatus ?? 'in_progress';
    await savePrepared(application, transaction);
    await preparedIn(
      transaction,
      `INSERT INTO cap.application_moves (id, application_id, action, from_stage, to_stage, actor_user_id, actor, feedback, status, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        newId(),
        application.id,
        action,
        from,
        found.to,
        actorUserId,
        mover,
        feedback ?? null,
        found.outcome ?? null,
        now,
      ],
    );
    if (found.emits) {
      await events.publish(transaction, found.emits, {
        applicationId: application.id,
        type: application.type,
        centreId: application.centreId,
        candidateUserId: application.candidateUserId,
        from,
        to: found.to,
      });
    }
    return application;
  }

  /** The application's current internal verifier as the client shows them, or null. */
  async function internalVerifierOf(applicationId: string) {
    const [assignment] = await assessors.assignments.activeAssignments({ applicationId, role: 'iv' });
    if (!assignment) return null;
    const card = (await assessors.cards([assignment.assessorId])).get(assignment.assessorId);
    return {
      assessorId: assignment.assessorId,
      name: card?.name ?? '',
      qualifications: card?.qualifications ?? [],
      assignedAt: assignment.assignedAt.toISOString(),
    };
  }

  /**
   * Names for the Application shape: the centres, sectors and trades of a page in one prepared statement,
   * with the SQL the list reads them by; a candidate's name from the draft, else (one more statement)
   * their candidate onboarding.
   */
  async function present(rows: Application[]) {
    const [named, names] = await Promise.all([
      read<{ centreName: string | null; sector: Card; trade: Card }>(
        'cap.applications.present',
        `SELECT ${centresSql.name('r.centre_id')} AS "centreName", ${catalogueSql.sectorCard('r.sector_id')} AS sector,
                ${catalogueSql.tradeCard('r.trade_id')} AS trade
           FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS r(centre_id, sector_id, trade_id, n)
          ORDER BY r.n`,
        [rows.map((row) => row.centreId), rows.map((row) => row.sectorId), rows.map((row) => row.tradeId)],
      ),
      candidateNames(rows),
    ]);
    return rows.map((row, i) => {
      const name = names.get(row.id)!;
      const { centreName, sector, trade } = named[i]!;
      return {
        id: row.id,
        candidateId: row.candidateUserId,
        centreId: row.centreId,
        awardingBodyId: row.awardingBodyId,
        type: row.type,
        status: row.status,
        currentStageKey: row.currentStageKey,
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
        submittedAt: row.submittedAt ? row.submittedAt.toISOString() : null,
        sectorId: row.sectorId,
        tradeId: row.tradeId,
        candidate: {
          id: row.candidateUserId,
          ...name,
          name: [name.firstName, name.lastName].filter(Boolean).join(' '),
        },
        centre: { id: row.centreId, name: centreName ?? '' },
        sector,
        trade,
      };
    });
  }

  /** The candidate's name as the application (else their candidate onboarding) gives it. */
  async function candidateNames(rows: Application[]) {
    const missing = rows
      .filter((row) => !valueAt(row.draft, 'personalInformation.personalDetails.firstName'))
      .map((row) => row.candidateUserId);
    const drafts = missing.length
      ? await people.onboardings.dataOfUsers(missing, 'candidate')
      : new Map<string, JsonObject>();
    return new Map(
      rows.map((row) => {
        const details = (valueAt(row.draft, 'personalInformation.personalDetails') ??
          valueAt(drafts.get(row.candidateUserId), 'personalDetails') ??
          {}) as JsonObject;
        return [row.id, { firstName: String(details.firstName ?? ''), lastName: String(details.lastName ?? '') }];
      }),
    );
  }
  const presentOne = async (row: Application) => (await present([row]))[0]!;

  /** The application's current facilitator (interviews/service.ts assigns them), with a live photo; or null. */
  async function facilitatorOf(applicationId: string) {
    const row = await assessors.facilitatorOf(applicationId);
    if (!row) return null;
    const photoOf = await people.photos.ofUsers([row.userId]);
    return {
      assessorId: row.assessorId,
      name: row.name,
      photo: photoOf(row.userId),
      assignedAt: new Date(row.assignedAt).toISOString(),
    };
  }

  return {
    models,
    move,
    byId,

    /**
     * Development mode only (the provider states): puts an application at a stage as if the moves before
     * it were made, without them. Beside `move`, the only other writer of an application's status.
     */
    async placeAt(applicationId: string, stageKey: 'interview'): Promise<void> {
      await Application.update(
        { currentStageKey: stageKey, status: 'in_progress' },
        { where: { id: applicationId }, silent: true },
      );
    },
    visible,
    present,
    centreCertifyBypass: deps.centreCertifyBypass,

    async ivApproved(applicationId: string, transaction?: Transaction): Promise<boolean> {
      const rows = await sequelize.query(`SELECT 1 WHERE ${ivApprovedWhere('$1')}`, {
        type: QueryTypes.SELECT,
        bind: [applicationId],
        transaction,
      });
      return rows.length > 0;
    },

    /**
     * A candidate's new draft at an approved centre, for an active trade of the sector. One open draft per
     * candidate, centre and type: a second is 409 application.draft_exists (the client resumes it).
     * The personal information starts from the candidate's onboarding.
     */
    async create(userId: string, input: NewApplication) {
      const problems: Array<{ field: string; issue: string }> = [];
      const [[sector], trade, centre] = await Promise.all([
        catalogue.sectors([input.sectorId]),
        catalogue.activeTrade(input.tradeId),
        centres.find(input.centreId).then((found) => (found?.status === 'approved' ? found : null)),
      ]);
      if (!sector) problems.push({ field: 'sectorId', issue: 'is not a sector of the catalogue' });
      if (!trade) problems.push({ field: 'tradeId', issue: 'is not an active trade of the catalogue' });
      else if (sector && trade.sectorId !== sector.id)
        problems.push({ field: 'tradeId', issue: 'is not a trade of that sector' });
      if (!centre) problems.push({ field: 'centreId', issue: 'is not an approved centre' });
      if (problems.length)
        throw validationFailed(problems, 'The application points at something the catalogue does not have.');
      const nos = await catalogue.activeNos(trade!.id);
      const profile = (await people.onboardings.dataOf(userId, 'candidate')) ?? {};
      const draft: JsonObject = {
        personalInformation: Object.fromEntries(
          ['personalDetails', 'contactInformation', 'residentialAddress']
            .filter((k) => profile[k])
            .map((k) => [k, profile[k]]),
        ),
        experienceAndTrade: {
          unitIds: input.unitIds ?? [],
          ...(profile.currentOccupation ? { currentOccupation: profile.currentOccupation } : {}),
        },
      };
      try {
        const application = await sequelize.transaction(async (transaction) => {
          const application = await Application.create(
            {
              candidateUserId: userId,
              centreId: centre!.id,
              type: input.type,
              status: 'draft',
              currentStageKey: 'application_form',
              sectorId: sector!.id,
              tradeId: trade!.id,
              nosDocumentId: nos?.id ?? null,
              draft,
            },
            { transaction },
          );
          const now = new Date();
          await ApplicationStageRow.bulkCreate(
            stagesOf[input.type].map((stageKey, position) => ({
              applicationId: application.id,
              stageKey,
              position,
              status: position === 0 ? ('in_progress' as const) : ('not_started' as const),
              enteredAt: position === 0 ? now : null,
              completedAt: null,
            })),
            { transaction },
          );
          return application;
        });
        return presentOne(application);
      } catch (err) {
        if (err instanceof UniqueConstraintError)
          throw conflict(
            'application.draft_exists',
            `You already have a ${input.type} draft at this centre: continue it.`,
          );
        throw err;
      }
    },

    /** The candidate's own applications, or the centre's; newest first unless sorted by submission. */
    async list(viewer: Viewer | AssessorViewer, query: ListQuery) {
      const where = new Conditions();
      if (viewer.persona === 'candidate') where.add('a.candidate_user_id = ?', viewer.userId);
      else if (viewer.centreId) where.add('a.centre_id = ?', viewer.centreId);
      const assessorId = viewer.persona === 'assessor' ? viewer.assessorId : query.assessorId;
      if (assessorId) where.add(assessorsSql.assigned('a.id', '?'), assessorId);
      if (query.tradeId) where.add('a.trade_id = ?', query.tradeId);
      if (query.type) where.add('a.type = ?', query.type);
      if (query.status) where.add('a.status = ?', query.status);
      if (query.stage) where.add('a.current_stage_key = ?', query.stage);
      if (query.interviewSchedulable) {
        where.add(`a.type = 'RPL' AND a.status = 'in_progress' AND a.current_stage_key IN ('folder_arrangement', 'interview')
          AND NOT EXISTS (SELECT 1 FROM cap.application_interviews i WHERE i.application_id = a.id AND i.scheduled_at IS NOT NULL)`);
      }
      if (query.handledBy) where.add(`${handlerUserIdOf('a')} = ?`, query.handledBy);
      if (query.queue) where.add(staffQueues[query.queue]('a'));
      if (query.ivApproved) where.add(ivApprovedWhere('a.id'));
      if (query.q) {
        where.add(
          `(${catalogueSql.tradeName('a.trade_id')} ILIKE ? OR concat_ws(' ', a.draft #>> '{personalInformation,personalDetails,firstName}', a.draft #>> '{personalInformation,personalDetails,lastName}') ILIKE ?)`,
          containing(query.q),
        );
      }
      // Sorted by submission: unsubmitted drafts last; ties by id. The cursor is the last row's id. One
      // statement with the assessors' and the catalogue's conditions, and the names it shows.
      const key = query.sort === 'submittedAt' ? `coalesce(a.submitted_at, 'infinity'::timestamptz)` : 'a.id';
      const direction = (query.order ?? 'desc') === 'desc' ? 'DESC' : 'ASC';
      const { items, meta } = await keysetRows<PresentedRow>(read, pageRequest(query as Record<string, unknown>), {
        select: `${presentedColumns('a')}, ${key} AS "sortKey"`,
        from: 'cap.applications a',
        alias: 'a',
        where,
        key,
        desc: direction === 'DESC',
        around: (rows) => presentedAround(rows, `p."sortKey" ${direction}, p.id ${direction}`),
      });
      return { items: items.map(presentedRow), meta };
    },

    /** The flat detail the client reads: the Application with the draft's sections at the top level. */
    async detail(viewer: Viewer, id: string) {
      const application = await visible(viewer, id);
      const user = (await people.users.recordsOf([application.candidateUserId])).get(application.candidateUserId);
      const draft = application.draft;
      const [frozen] = application.submittedAt
        ? await read<{ data: JsonObject }>(
            'cap.applications.first-version',
            `SELECT data FROM cap.application_versions WHERE application_id = $1 ORDER BY version_no ASC LIMIT 1`,
            [id],
          )
        : [];
      return {
        ...(await presentOne(application)),
        unitIds: (valueAt(draft, 'experienceAndTrade.unitIds') as string[] | undefined) ?? [],
        identityVerified: user?.identityVerified ?? false,
        identityFieldsLocked: application.status !== 'draft',
        reasonForSeekingRPL: (valueAt(draft, 'experienceAndTrade.reasonForSeekingRPL') as string | undefined) ?? null,
        evidenceCandidateCanProvide:
          (valueAt(draft, 'experienceAndTrade.evidenceCandidateCanProvide') as JsonObject | undefined) ?? null,
        assessmentDeclaration: (draft.assessmentDeclaration as JsonObject | undefined) ?? null,
        personalInformation: (draft.personalInformation as JsonObject | undefined) ?? {},
        currentOccupation: (valueAt(draft, 'experienceAndTrade.currentOccupation') as JsonObject | undefined) ?? null,
        frozenProfile: frozen ? ((frozen.data.personalInformation as JsonObject | undefined) ?? null) : null,
        internalVerifier: await internalVerifierOf(id),
        facilitator: await facilitatorOf(id),
      };
    },

    /** Merges the nested draft body into the draft; only the candidate, only while it is a draft. */
    async update(userId: string, id: string, patch: JsonObject) {
      const application = await sequelize.transaction(async (transaction) => {
        const application = await visible({ persona: 'candidate', userId }, id, transaction);
        if (application.status !== 'draft')
          throw conflict('application.not_in_stage', `The application is ${application.status}: only a draft changes.`);
        application.draft = mergePatch(application.draft, patch) as JsonObject;
        return savePrepared(application, transaction);
      });
      return presentOne(application);
    },

    /** Submits the draft: it must be complete (422 naming every missing field); version 1 is kept. */
    async submit(userId: string, id: string) {
      const application = await sequelize.transaction(async (transaction) => {
        const application = await visible({ persona: 'candidate', userId }, id, transaction);
        const submittedAt = new Date();
        application.submittedAt = submittedAt; // written with the move's status
        await move(application, 'submit', 'candidate', userId, transaction);
        await preparedIn(
          transaction,
          `INSERT INTO cap.application_versions (id, application_id, version_no, data, submitted_by, feedback, created_at)
           SELECT $1, $2::text, count(*) + 1, $3, $4, NULL, $5 FROM cap.application_versions WHERE application_id = $2::text`,
          [newId(), id, JSON.stringify(application.draft), userId, submittedAt],
        );
        return application;
      });
      return presentOne(application);
    },

    /** The centre approves the current stage into the next, or rejects the application, with feedback. */
    async review(
      viewer: Viewer,
      id: string,
      body: { decision: 'approve' | 'reject'; stageKey?: string; feedback?: string },
    ) {
      if (viewer.persona !== 'centre')
        throw forbidden(
          'auth.centre_persona_required',
          'Applications are reviewed for their centre: send X-CAP-PERSONA: centre.',
        );
      const application = await sequelize.transaction(async (transaction) => {
        const application = await visible(viewer, id, transaction);
        if (body.stageKey && body.stageKey !== application.currentStageKey) {
          throw conflict(
            'application.not_in_stage',
            `The application is at stage ${application.currentStageKey}, not ${body.stageKey}.`,
          );
        }
        const action =
          body.decision === 'reject'
            ? 'reject'
            : application.currentStageKey === 'certification'
              ? 'certify'
              : 'approve';
        return move(application, action, 'centre', viewer.userId, transaction, body.feedback ?? null);
      });
      return presentOne(application);
    },

    async stages(viewer: Viewer, id: string) {
      const application = await visible(viewer, id);
      const rows = await ApplicationStageRow.findAll({ where: { applicationId: id }, order: [['position', 'ASC']] });
      const template = await catalogue.workflowInForce(application.type);
      const templateOf = (stageKey: StageKey) => template.stages.find((stage) => stage.stageKey === stageKey);
      // The payment stage shows what was paid (or is being paid): the completed attempt, else the newest.
      const [paid] = await sequelize.query<{ amount_minor: string; currency: string }>(
        `SELECT amount_minor::text, currency FROM cap.application_payments WHERE application_id = $1 ORDER BY (status = 'completed') DESC, attempt DESC LIMIT 1`,
        { type: QueryTypes.SELECT, bind: [id] },
      );
      return rows.map((row) => ({
        stageKey: row.stageKey,
        label: templateOf(row.stageKey)?.label ?? stageLabels[row.stageKey],
        status: row.status,
        enteredAt: row.enteredAt ? row.enteredAt.toISOString() : null,
        // The workflow template in force paces each stage from its entry (templates/workflow.ts).
        deadline: deadlineOf(row.enteredAt, templateOf(row.stageKey)?.durationDays ?? null),
        ...(row.stageKey === 'payment' && paid ? { amountMinorUnits: paid.amount_minor, currency: paid.currency } : {}),
        receipt: null,
      }));
    },

    async history(viewer: Viewer, id: string) {
      await visible(viewer, id);
      const versions = await ApplicationVersion.findAll({
        where: { applicationId: id },
        order: [['versionNo', 'ASC']],
      });
      return versions.map((v) => ({
        versionNo: v.versionNo,
        data: v.data,
        submittedBy: v.submittedBy,
        feedback: v.feedback,
        createdAt: v.createdAt.toISOString(),
      }));
    },

    /** Which steps of the candidate's form are done. */
    async progress(viewer: Viewer, id: string) {
      const application = await visible(viewer, id);
      const user = (await people.users.recordsOf([application.candidateUserId])).get(application.candidateUserId);
      const done = (prefix: string) =>
        missingPaths(
          application.draft,
          requiredOnSubmit().filter((path) => path.startsWith(prefix)),
        ).length === 0;
      return {
        personalInformation: done('personalInformation.'),
        experienceAndTrade: done('experienceAndTrade.'),
        verifyIdentity: user?.identityVerified ?? false,
        reviewAndSubmit: application.submittedAt !== null,
      };
    },

    /** Counts of the viewer's applications: under way (drafts included) and finished. */
    async summary(viewer: Viewer) {
      const [row] = await sequelize.query<{ active: number; completed: number }>(
        `SELECT count(*) FILTER (WHERE status IN ('draft', 'in_progress'))::int AS active, count(*) FILTER (WHERE status IN ('certified', 'rejected', 'withdrawn'))::int AS completed
           FROM cap.applications WHERE ${viewer.persona === 'candidate' ? 'candidate_user_id' : 'centre_id'} = $1`,
        { type: QueryTypes.SELECT, bind: [viewer.persona === 'candidate' ? viewer.userId : viewer.centreId] },
      );
      return row!;
    },
  };
}

export type Applications = ReturnType<typeof createApplications>;
