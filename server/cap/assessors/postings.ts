import { Op, QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { Conditions } from '../../platform/db/keyset.ts';
import { containing } from '../../platform/db/like.ts';
import { preparedReads } from '../../platform/db/prepared.ts';
import { AppError, conflict, forbidden, notFound, validationFailed } from '../../platform/http/errors.ts';
import { catalogueSql, type Catalogue } from '../catalogue/index.ts';
import { centresSql, type Centres } from '../centres/index.ts';
import type { CentreContext } from '../people/index.ts';
import { checkMove, lifecycleWriter, modelStore } from '../../platform/lifecycle.ts';
import {
  jobApplicationLifecycle,
  jobPostingLifecycle,
  type JobApplicationDecision,
  type JobApplicationStatus,
  type JobPostingStatus,
} from './lifecycles.ts';
import type { JobPosting, JobPostingApplication } from './models.ts';
import { assessorJoins, assessorNameSql, idPage, type AssessorCards } from './cards.ts';
import { allOrNothing, mustDecide, ofCentre } from './rules.ts';
import type { AssessorService } from './service.ts';

export interface NewJobPosting {
  title: string;
  tradeId: string;
  slot: number;
  deadline: string;
  description: string;
  requirements: string[];
  duration?: string | null;
}

export interface PostingQuery {
  q?: string;
  status?: JobPostingStatus;
  sort?: 'createdAt' | 'deadline';
  order?: 'asc' | 'desc';
  cursor?: string;
  limit?: number;
}

export interface JobApplicationQuery {
  q?: string;
  status?: JobApplicationStatus;
  order?: 'asc' | 'desc';
  cursor?: string;
  limit?: number;
}

const decided: Record<JobApplicationDecision, string> = { shortlist: 'shortlisted', reject: 'rejected' };

/**
 * Job postings and the marketplace: a centre's admins post openings for a trade (slots, a deadline);
 * approved assessors see the open ones of their own sectors whose deadline has not passed, at approved
 * centres, and apply once each; the centre shortlists (`accepted`) or rejects them, never beyond the
 * slots. A posting whose last slot is taken is `filled`; the centre closes it when it is done.
 */
export function createJobPostings(
  sequelize: Sequelize,
  assessors: AssessorService,
  catalogue: Pick<Catalogue, 'trades' | 'activeTrade'>,
  centres: Pick<Centres, 'find' | 'findAll'>,
  cards: AssessorCards,
) {
  const read = preparedReads(sequelize);
  const { JobPosting, JobPostingApplication, AssessorSector } = assessors.models;
  const postingWriter = lifecycleWriter(jobPostingLifecycle, { store: modelStore(JobPosting) });
  const applicationWriter = lifecycleWriter(jobApplicationLifecycle, { store: modelStore(JobPostingApplication) });

  async function presentPostings(rows: JobPosting[]) {
    const ids = rows.map((row) => row.id);
    const [trades, centreRows, counts] = await Promise.all([
      catalogue.trades(rows.map((row) => row.tradeId)),
      centres.findAll(rows.map((row) => row.centreId)),
      sequelize.query<{ id: string; applicants: number; accepted: number }>(
        `SELECT job_posting_id AS id, count(*)::int AS applicants, count(*) FILTER (WHERE status = 'accepted')::int AS accepted
           FROM cap.job_posting_applications WHERE job_posting_id = ANY($1) GROUP BY job_posting_id`,
        { type: QueryTypes.SELECT, bind: [ids] },
      ),
    ]);
    return rows.map((row) => {
      const trade = trades.find((t) => t.id === row.tradeId)!;
      const count = counts.find((c) => c.id === row.id);
      return {
        id: row.id,
        centreId: row.centreId,
        centre: { id: row.centreId, name: centreRows.find((c) => c.id === row.centreId)?.name ?? '' },
        title: row.title,
        tradeId: row.tradeId,
        trade: { id: trade.id, name: trade.name },
        sectorId: trade.sectorId,
        slot: row.slot,
        deadline: row.deadline.toISOString(),
        description: row.description,
        requirements: row.requirements,
        duration: row.duration,
        status: row.status,
        applicantCount: count?.applicants ?? 0,
        slotsOccupied: count?.accepted ?? 0,
        createdAt: row.createdAt.toISOString(),
      };
    });
  }
  const presentPosting = async (row: JobPosting) => (await presentPostings([row]))[0]!;

  async function postingsInOrder(ids: string[]) {
    const rows = await JobPosting.findAll({ where: { id: { [Op.in]: ids } } });
    return presentPostings(ids.map((id) => rows.find((row) => row.id === id)!));
  }

  /** The centre's side of applications: with who applied and the posting's trade. */
  async function presentApplications(rows: JobPostingApplication[]) {
    const postings = await JobPosting.findAll({
      where: { id: { [Op.in]: [...new Set(rows.map((row) => row.jobPostingId))] } },
      attributes: ['id', 'tradeId'],
    });
    const [trades, people] = await Promise.all([
      catalogue.trades(postings.map((p) => p.tradeId)),
      cards(rows.map((row) => row.assessorId)),
    ]);
    return rows.map((row) => {
      const trade = trades.find((t) => t.id === postings.find((p) => p.id === row.jobPostingId)!.tradeId)!;
      return {
        id: row.id,
        jobPostingId: row.jobPostingId,
        status: row.status,
        createdAt: row.createdAt.toISOString(),
        decidedAt: row.decidedAt ? row.decidedAt.toISOString() : null,
        trade: { id: trade.id, name: trade.name },
        assessor: people.get(row.assessorId) ?? null,
      };
    });
  }

  /** The assessor's side: their application with the posting it is for. */
  async function presentOwn(rows: JobPostingApplication[]) {
    const postings = await postingsInOrder([...new Set(rows.map((row) => row.jobPostingId))]);
    return rows.map((row) => ({
      id: row.id,
      jobPostingId: row.jobPostingId,
      status: row.status,
      createdAt: row.createdAt.toISOString(),
      decidedAt: row.decidedAt ? row.decidedAt.toISOString() : null,
      jobPosting: postings.find((p) => p.id === row.jobPostingId)!,
    }));
  }

  async function lockedPosting(context: CentreContext, id: string, transaction: Transaction) {
    return ofCentre(
      await JobPosting.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE }),
      context,
      'job posting',
      id,
    );
  }

  /** Why the centre cannot take this decision on this application, or undefined; `taken` counts the posting's accepted slots as the plan goes. */
  function problemWith(
    row: JobPostingApplication | undefined,
    id: string,
    posting: JobPosting,
    decision: JobApplicationDecision,
    taken: { count: number },
  ) {
    if (!row || row.jobPostingId !== posting.id)
      return { status: 404, code: 'http.not_found', issue: `no application to this posting has the id ${id}` };
    const verdict = checkMove(jobApplicationLifecycle, row.status, decision, 'centre');
    if (!verdict.ok)
      return {
        status: 409,
        code: 'job_application.transition_not_allowed',
        issue: `application ${id} is ${row.status} and cannot be ${decided[decision]}`,
      };
    const to = verdict.to;
    if (to === 'accepted' && row.status !== 'accepted') {
      if (taken.count >= posting.slot)
        return {
          status: 409,
          code: 'job_posting.slots_full',
          issue: `no slot is left for application ${id}: all ${posting.slot} are taken`,
        };
      taken.count += 1;
    }
    if (to === 'rejected' && row.status === 'accepted') taken.count -= 1;
    return undefined;
  }

  /** Decisions on applications to one posting, all or nothing; the posting fills when its last slot goes, and opens again when one frees. */
  async function decideAll(
    context: CentreContext,
    userId: string,
    postingId: string,
    ids: string[],
    decision: JobApplicationDecision,
    single: boolean,
  ) {
    mustDecide(context, `${decision} applicants`);
    const rows = await sequelize.transaction(async (transaction) => {
      const posting = await lockedPosting(context, postingId, transaction);
      const found = await JobPostingApplication.findAll({
        where: { id: { [Op.in]: ids } },
        transaction,
        lock: transaction.LOCK.UPDATE,
      });
      const taken = {
        count: await JobPostingApplication.count({
          where: { jobPostingId: posting.id, status: 'accepted' },
          transaction,
        }),
      };
      if (single) {
        const problem = problemWith(found[0], ids[0]!, posting, decision, { ...taken });
        if (problem)
          throw new AppError(
            problem.status,
            problem.code,
            `${problem.issue[0]!.toUpperCase()}${problem.issue.slice(1)}.`,
          );
      }
      const changed = await allOrNothing(ids, found, 'job_application.bulk_refused', {
        problem: (row, id) => problemWith(row, id, posting, decision, taken)?.issue,
        apply: (row) =>
          applicationWriter.move(transaction, row, decision, {
            by: 'centre',
            changes: { decidedAt: new Date(), decidedBy: userId },
          }),
      });
      // A closed posting stays closed.
      const action = taken.count >= posting.slot ? 'fill' : 'release';
      if (checkMove(jobPostingLifecycle, posting.status, action, 'decisions').ok)
        await postingWriter.move(transaction, posting, action, { by: 'decisions' });
      return changed;
    });
    return presentApplications(rows);
  }

  /** An approved assessor's sectors. */
  async function sectorsOf(assessorId: string) {
    return (await AssessorSector.findAll({ where: { assessorId }, attributes: ['sectorId'] })).map(
      (row) => row.sectorId,
    );
  }

  return {
    /** Admins of an approved centre post for an active trade, with a deadline still ahead. */
    async create(context: CentreContext, userId: string, input: NewJobPosting) {
      mustDecide(context, 'post jobs');
      const centre = (await centres.find(context.centreId))!;
      if (centre.status !== 'approved')
        throw forbidden(
          'centre.not_approved',
          'The centre is not approved yet: it can post jobs once a platform admin approves it.',
        );
      const problems: Array<{ field: string; issue: string }> = [];
      if (!(await catalogue.activeTrade(input.tradeId)))
        problems.push({ field: 'tradeId', issue: 'is not an active trade of the catalogue' });
      const deadline = new Date(input.deadline);
      if (!(deadline.getTime() > Date.now())) problems.push({ field: 'deadline', issue: 'must be in the future' });
      if (problems.length) throw validationFailed(problems, 'The job posting cannot be made as it is.');
      const values = {
        centreId: context.centreId,
        tradeId: input.tradeId,
        title: input.title.trim(),
        slot: input.slot,
        deadline,
        description: input.description,
        requirements: input.requirements,
        duration: input.duration ?? null,
        createdBy: userId,
      };
      const row = (await sequelize.transaction((transaction) =>
        postingWriter.create(transaction, 'post', values, { by: 'centre' }),
      ))!;
      return presentPosting(row);
    },

    /** Filters `status` and `q` (part of the title); newest first, or by deadline (soonest first). */
    async list(context: CentreContext, query: PostingQuery) {
      const where = new Conditions().add('x.centre_id = ?', context.centreId);
      if (query.status) where.add('x.status = ?', query.status);
      if (query.q) where.add('x.title ILIKE ?', containing(query.q));
      const byDeadline = query.sort === 'deadline';
      const desc = (query.order ?? (byDeadline ? 'asc' : 'desc')) === 'desc';
      const { ids, meta } = await idPage(read, query, {
        from: 'cap.job_postings x',
        where,
        key: byDeadline ? 'x.deadline' : 'x.created_at',
        desc,
      });
      return { items: await postingsInOrder(ids), meta };
    },

    async get(context: CentreContext, id: string) {
      return presentPosting(ofCentre(await JobPosting.findByPk(id), context, 'job posting', id));
    },

    async close(context: CentreContext, id: string) {
      mustDecide(context, 'close job postings');
      const row = await sequelize.transaction(async (transaction) => {
        const posting = await lockedPosting(context, id, transaction);
        if (!checkMove(jobPostingLifecycle, posting.status, 'close', 'centre').ok)
          throw conflict(
            'job_posting.transition_not_allowed',
            `The posting is ${posting.status} and cannot be closed.`,
          );
        await postingWriter.move(transaction, posting, 'close', { by: 'centre' });
        return posting;
      });
      return presentPosting(row);
    },

    async closeAll(context: CentreContext, ids: string[]) {
      mustDecide(context, 'close job postings');
      const rows = await sequelize.transaction(async (transaction) => {
        const found = await JobPosting.findAll({
          where: { id: { [Op.in]: ids } },
          transaction,
          lock: transaction.LOCK.UPDATE,
        });
        return allOrNothing(ids, found, 'job_posting.bulk_refused', {
          problem: (row, id) =>
            !row
              ? `no job posting has the id ${id}`
              : row.centreId !== context.centreId
                ? `job posting ${id} belongs to another centre`
                : checkMove(jobPostingLifecycle, row.status, 'close', 'centre').ok
                  ? undefined
                  : `job posting ${id} is ${row.status} and cannot be closed`,
          apply: (row) => postingWriter.move(transaction, row, 'close', { by: 'centre' }),
        });
      });
      return presentPostings(rows);
    },

    /** Only a posting nobody applied to (409 `job_posting.in_use`): applications are the assessors' record. */
    async delete(context: CentreContext, id: string) {
      mustDecide(context, 'delete job postings');
      await sequelize.transaction(async (transaction) => {
        const posting = await lockedPosting(context, id, transaction);
        const applied = await JobPostingApplication.count({ where: { jobPostingId: id }, transaction });
        if (applied > 0)
          throw conflict(
            'job_posting.in_use',
            `${applied} assessor${applied === 1 ? ' has' : 's have'} applied to this posting: close it instead.`,
          );
        await posting.destroy({ transaction });
      });
      return { deleted: true as const };
    },

    /** Applications to one of the centre's postings: `status`, `q` (the assessor's name or email); oldest first unless `order=desc`. */
    async applications(context: CentreContext, postingId: string, query: JobApplicationQuery) {
      ofCentre(await JobPosting.findByPk(postingId), context, 'job posting', postingId);
      const where = new Conditions().add('x.job_posting_id = ?', postingId);
      if (query.status) where.add('x.status = ?', query.status);
      if (query.q) where.add(`(${assessorNameSql()} ILIKE ? OR u.email ILIKE ?)`, containing(query.q));
      const { ids, meta } = await idPage(read, query, {
        from: `cap.job_posting_applications x JOIN cap.assessor_profiles p ON p.id = x.assessor_id ${assessorJoins()}`,
        where,
        key: 'x.created_at',
        desc: query.order === 'desc',
      });
      const rows = await JobPostingApplication.findAll({ where: { id: { [Op.in]: ids } } });
      return { items: await presentApplications(ids.map((id) => rows.find((row) => row.id === id)!)), meta };
    },

    async application(context: CentreContext, postingId: string, applicationId: string) {
      ofCentre(await JobPosting.findByPk(postingId), context, 'job posting', postingId);
      const row = await JobPostingApplication.findOne({ where: { id: applicationId, jobPostingId: postingId } });
      if (!row) throw notFound(`No application to this posting has the id ${applicationId}.`);
      return (await presentApplications([row]))[0]!;
    },

    decide: async (
      context: CentreContext,
      userId: string,
      postingId: string,
      applicationId: string,
      decision: JobApplicationDecision,
    ) => (await decideAll(context, userId, postingId, [applicationId], decision, true))[0]!,
    decideMany: (
      context: CentreContext,
      userId: string,
      postingId: string,
      ids: string[],
      decision: JobApplicationDecision,
    ) => decideAll(context, userId, postingId, ids, decision, false),

    /** Open postings of approved centres, in the approved assessor's sectors, deadline ahead; newest first. */
    async marketplace(userId: string, query: { cursor?: string; limit?: number }) {
      const profile = await assessors.approvedProfileOf(userId, 'the marketplace opens');
      // One statement with the catalogue's and the centres' conditions: the page is filtered by both.
      const { ids, meta } = await idPage(read, query, {
        from: 'cap.job_postings x',
        where: new Conditions()
          .add(
            catalogueSql.activeTradeIn(
              'x.trade_id',
              'SELECT s.sector_id FROM cap.assessor_sectors s WHERE s.assessor_id = ?',
            ),
            profile.id,
          )
          .add(`x.status = 'open' AND x.deadline > now() AND ${centresSql.approved('x.centre_id')}`),
        key: 'x.created_at',
        desc: true,
      });
      return { items: await postingsInOrder(ids), meta };
    },

    /** Once per posting; only to one the marketplace would show the assessor. */
    async apply(userId: string, postingId: string) {
      const profile = await assessors.approvedProfileOf(userId, 'you can apply to jobs');
      const posting = await JobPosting.findByPk(postingId);
      if (!posting) throw notFound(`No job posting has the id ${postingId}.`);
      const [[trade], centre] = await Promise.all([
        catalogue.trades([posting.tradeId]),
        centres.find(posting.centreId),
      ]);
      if (!(await sectorsOf(profile.id)).includes(trade!.sectorId)) {
        throw forbidden(
          'job_posting.outside_sectors',
          'This posting is for a trade outside your sectors: add the sector to your profile first.',
        );
      }
      if (posting.status !== 'open' || centre!.status !== 'approved' || trade!.status !== 'active') {
        throw conflict(
          'job_posting.not_open',
          `This posting is ${posting.status === 'open' ? 'no longer offered' : posting.status}: it takes no more applications.`,
        );
      }
      if (posting.deadline.getTime() <= Date.now())
        throw conflict('job_posting.deadline_passed', 'The deadline of this posting has passed.');
      try {
        const values = { jobPostingId: posting.id, assessorId: profile.id };
        const row = (await sequelize.transaction((transaction) =>
          applicationWriter.create(transaction, 'apply', values, { by: 'assessor' }),
        ))!;
        return (await presentOwn([row]))[0]!;
      } catch (err) {
        if (err instanceof UniqueConstraintError)
          throw conflict('job_posting.already_applied', 'You have already applied to this posting.');
        throw err;
      }
    },

    /** The caller's own applications to postings, newest first. */
    async mine(userId: string, query: { cursor?: string; limit?: number }) {
      const profile = await assessors.profileOf(userId);
      const { ids, meta } = await idPage(read, query, {
        from: 'cap.job_posting_applications x',
        where: new Conditions().add('x.assessor_id = ?', profile.id),
        key: 'x.created_at',
        desc: true,
      });
      const rows = await JobPostingApplication.findAll({ where: { id: { [Op.in]: ids } } });
      return { items: await presentOwn(ids.map((id) => rows.find((row) => row.id === id)!)), meta };
    },
  };
}

export type JobPostings = ReturnType<typeof createJobPostings>;
