import { QueryTypes, type Sequelize } from 'sequelize';
import { forbidden, validationFailed } from '../../platform/http/errors.ts';
import type { JsonObject } from '../../platform/http/merge-patch.ts';
import type { ListQuery } from '../applications/index.ts';
import type { Catalogue } from '../catalogue/index.ts';
import type { Centres } from '../centres/index.ts';
import type { People } from '../people/index.ts';
import type { AssessorCards } from './cards.ts';
import type { ApplicationsOfAssessors } from './needs.ts';
import { countWorkload } from './rules.ts';
import type { AssessorSectors } from './sectors.ts';
import type { AssessorService } from './service.ts';

/**
 * The assessor's own console: their profile (which nests the assessor onboarding: the profile and the
 * draft are one record, so a profile change is written into the draft, and the sectors follow the
 * draft's `assessorDetails.sectorIds`), their sectors, the centres that retain them, and the
 * applications they are assigned to.
 */
export function createAssessorConsole(deps: {
  sequelize: Sequelize;
  assessors: AssessorService;
  sectors: AssessorSectors;
  people: Pick<People, 'onboardings'>;
  catalogue: Pick<Catalogue, 'sectors' | 'knownSectorIds'>;
  centres: Pick<Centres, 'findAll'>;
  applications: ApplicationsOfAssessors;
  cards: AssessorCards;
}) {
  const { sequelize, assessors, catalogue, centres, applications, cards } = deps;
  const { onboardings } = deps.people;
  const { AssessorSector, RetainedRequest } = assessors.models;

  async function sectorsOf(assessorId: string) {
    const ids = (await AssessorSector.findAll({ where: { assessorId }, attributes: ['sectorId'] })).map(
      (row) => row.sectorId,
    );
    const sectors = await catalogue.sectors(ids);
    return sectors.map((s) => ({ id: s.id, slug: s.slug, name: s.name, description: s.description ?? null }));
  }

  async function profile(userId: string) {
    const row = await assessors.profileOf(userId);
    const [card, draft] = await Promise.all([
      cards([row.id]).then((found) => found.get(row.id)!),
      onboardings.dataOf(userId, 'assessor'),
    ]);
    return { ...card, userId, status: row.status, createdAt: row.createdAt.toISOString(), onboarding: draft };
  }

  /** The centres whose approved requests retain the assessor. */
  async function retainingCentreIds(assessorId: string) {
    return (await RetainedRequest.findAll({ where: { assessorId, status: 'approved' }, attributes: ['centreId'] })).map(
      (row) => row.centreId,
    );
  }

  /** Unknown sectors are 422, each named at its index. */
  async function knownSectors(sectorIds: string[], field: string) {
    const found = await catalogue.knownSectorIds(sectorIds);
    const problems = sectorIds.flatMap((id, i) =>
      found.includes(id) ? [] : [{ field: `${field}[${i}]`, issue: 'is not a sector of the catalogue' }],
    );
    if (problems.length) throw validationFailed(problems, 'Choose sectors from the catalogue.');
  }

  return {
    profile,

    /** Merges into the assessor onboarding (null removes a field); `assessorDetails.sectorIds` sets the sectors. */
    async updateProfile(userId: string, patch: JsonObject) {
      const sectorIds = (patch.assessorDetails as JsonObject | null | undefined)?.sectorIds as
        string[] | null | undefined;
      if (sectorIds) await knownSectors(sectorIds, 'assessorDetails.sectorIds');
      await sequelize.transaction(async (transaction) => {
        const row = await assessors.profileOf(userId, transaction);
        await onboardings.patch(transaction, userId, 'assessor', patch);
        if (sectorIds !== undefined) await deps.sectors.setSectors(row.id, sectorIds ?? [], transaction);
      });
      return profile(userId);
    },

    async sectors(userId: string) {
      return sectorsOf((await assessors.profileOf(userId)).id);
    },

    /** Replaces the sectors (from the catalogue); the onboarding draft's `assessorDetails.sectorIds` follows. */
    async setSectors(userId: string, sectorIds: string[]) {
      const unique = [...new Set(sectorIds)];
      await knownSectors(unique, 'sectorIds');
      const row = await assessors.profileOf(userId);
      await sequelize.transaction(async (transaction) => {
        await deps.sectors.setSectors(row.id, unique, transaction);
        await onboardings.patch(transaction, userId, 'assessor', { assessorDetails: { sectorIds: unique } });
      });
      return sectorsOf(row.id);
    },

    /** Counts for the assessor's dashboard, from their rows and the statuses of the applications they are assigned to. */
    async summary(userId: string) {
      const row = await assessors.profileOf(userId);
      const [counts] = await sequelize.query<Record<string, number>>(
        `SELECT
           (SELECT count(*) FROM cap.retained_requests WHERE assessor_id = $1 AND status = 'approved')::int AS "retainedBy",
           (SELECT count(*) FROM cap.retained_requests WHERE assessor_id = $1 AND status = 'pending')::int AS "pendingRequests",
           (SELECT count(*) FROM cap.application_assessors WHERE assessor_id = $1 AND ended_at IS NULL)::int AS "activeAssignments",
           (SELECT count(*) FROM cap.job_posting_applications WHERE assessor_id = $1 AND status = 'applied')::int AS "jobsApplied",
           (SELECT count(*) FROM cap.job_posting_applications WHERE assessor_id = $1 AND status = 'accepted')::int AS "jobsAccepted"`,
        { type: QueryTypes.SELECT, bind: [row.id] },
      );
      const assigned = [
        ...new Set((await assessors.assignments.activeAssignments({ assessorId: row.id })).map((a) => a.applicationId)),
      ];
      const states = await applications.statesOf(assigned);
      const c = counts!;
      return {
        status: row.status,
        retainedBy: c.retainedBy,
        pendingRequests: c.pendingRequests,
        activeAssignments: c.activeAssignments,
        applications: countWorkload(assigned.map((id) => states.get(id)?.status)),
        jobApplications: { applied: c.jobsApplied, accepted: c.jobsAccepted },
      };
    },

    /** The assessor's current assignments, oldest first, each with its application. */
    async events(userId: string) {
      const row = await assessors.profileOf(userId);
      const assignments = await assessors.assignments.activeAssignments({ assessorId: row.id });
      const presented = await applications.presentByIds(assignments.map((a) => a.applicationId));
      return assignments.map((a) => ({
        id: a.id,
        applicationId: a.applicationId,
        centreId: a.centreId,
        role: a.role,
        lead: a.lead,
        assignedAt: a.assignedAt.toISOString(),
        application: presented.find((p) => p.id === a.applicationId)!,
      }));
    },

    /** The applications the assessor is currently assigned to (at `centreId` only, when given), with their roles on each. */
    async applications(userId: string, query: ListQuery, centreId?: string) {
      const row = await assessors.profileOf(userId);
      if (centreId && !(await retainingCentreIds(row.id)).includes(centreId)) {
        throw forbidden('auth.out_of_scope', 'That centre does not retain you.');
      }
      const { items, meta } = await applications.list(
        { persona: 'assessor', userId, assessorId: row.id, centreId },
        query,
      );
      const assignments = await assessors.assignments.activeAssignments({ assessorId: row.id });
      return {
        items: items.map((item) => ({
          ...item,
          assignments: assignments
            .filter((a) => a.applicationId === item.id)
            .map((a) => ({ role: a.role, lead: a.lead, assignedAt: a.assignedAt.toISOString() })),
        })),
        meta,
      };
    },

    /** The centres that retain the assessor, by name. */
    async centres(userId: string) {
      const row = await assessors.profileOf(userId);
      const requests = await RetainedRequest.findAll({ where: { assessorId: row.id, status: 'approved' } });
      const centreRows = await centres.findAll(requests.map((r) => r.centreId));
      const assignments = await assessors.assignments.activeAssignments({ assessorId: row.id });
      return centreRows.map((centre) => {
        const request = requests.find((r) => r.centreId === centre.id)!;
        return {
          id: centre.id,
          name: centre.name,
          status: centre.status,
          retainedRequestId: request.id,
          preferredRole: request.preferredRole,
          retainedSince: (request.respondedAt ?? request.createdAt).toISOString(),
          activeAssignments: assignments.filter((a) => a.centreId === centre.id).length,
        };
      });
    },
  };
}

export type AssessorConsole = ReturnType<typeof createAssessorConsole>;
