import { QueryTypes } from 'sequelize';
import { notFound } from '../../platform/http/errors.ts';
import { valueAt, type JsonObject } from '../../platform/http/merge-patch.ts';
import { Conditions, keysetRows } from '../../platform/db/keyset.ts';
import { isoTime } from '../../platform/db/iso-time.ts';
import { preparedReads } from '../../platform/db/prepared.ts';
import { pageRequest } from '../../platform/http/pagination.ts';
import type { Centres } from '../centres/index.ts';
import {
  createModeration,
  type BulkAction,
  type ModerationAction,
  type ModerationStatus,
  type People,
  peopleSql,
} from '../people/index.ts';
import type { AssessorProfile } from './models.ts';
import type { ApplicationsOfAssessors } from './needs.ts';
import type { AssessorService } from './service.ts';

/** A row of the admins' list, `photo` still an asset id. */
interface ListRow {
  id: string;
  userId: string;
  name: string | null;
  email: string;
  photo: string | null;
  status: ModerationStatus;
  createdAt: string;
}

/** A part of the name on the onboarding `o` (as `present` joins them: empty parts left out). */
const namePart = (field: string) => `NULLIF(o.data #>> '{personalDetails,${field}}', '')`;

/**
 * The admins' side of assessors: the list (newest first, with who they are from their onboarding),
 * the summary, the detail, and their moderation (moderation/lifecycle.ts), one at a time or in bulk.
 */
export function createAdminAssessors(
  assessors: AssessorService,
  people: Pick<People, 'users' | 'onboardings' | 'photos'>,
  centres: Pick<Centres, 'findAll'>,
  applications: ApplicationsOfAssessors,
) {
  const { AssessorProfile } = assessors.models;
  const read = preparedReads(AssessorProfile.sequelize!);

  /** Each profile with the email and the assessor onboarding of its user. */
  async function present(profiles: AssessorProfile[]) {
    const userIds = profiles.map((p) => p.userId);
    const [users, drafts, photoOf] = await Promise.all([
      people.users.recordsOf(userIds),
      people.onboardings.dataOfUsers(userIds, 'assessor'),
      people.photos.ofUsers(userIds),
    ]);
    return profiles.map((profile) => {
      const data = drafts.get(profile.userId) ?? {};
      const name = ['firstName', 'lastName']
        .map((field) => valueAt(data, `personalDetails.${field}`))
        .filter(Boolean)
        .join(' ');
      return {
        id: profile.id,
        userId: profile.userId,
        name: name || null,
        email: users.get(profile.userId)?.email ?? '',
        photo: photoOf(profile.userId),
        status: profile.status,
        createdAt: profile.createdAt.toISOString(),
        personalDetails: (data.personalDetails as JsonObject | undefined) ?? null,
        assessorDetails: (data.assessorDetails as JsonObject | undefined) ?? null,
      };
    });
  }

  const moderation = createModeration<AssessorProfile>({
    noun: 'assessor',
    Model: AssessorProfile,
    label: (profile) => `assessor ${profile.id}`,
    // Any retained request, assignment or job application keeps the assessor (their history stays).
    async usedBy(profile, transaction) {
      const { RetainedRequest, ApplicationAssessor, JobPostingApplication } = assessors.models;
      const where = { assessorId: profile.id };
      const uses = [
        [await RetainedRequest.count({ where, transaction }), 'retained request'],
        [await ApplicationAssessor.count({ where, transaction }), 'assignment'],
        [await JobPostingApplication.count({ where, transaction }), 'job application'],
      ] as const;
      const named = uses
        .filter(([count]) => count > 0)
        .map(([count, noun]) => `${count} ${noun}${count === 1 ? '' : 's'}`);
      return named.length ? `it has ${named.join(', ')}` : undefined;
    },
    // The profile and the assessor onboarding go: the person may onboard again.
    async remove(profile, transaction) {
      await people.onboardings.remove(profile.userId, 'assessor', transaction);
      await profile.destroy({ transaction });
    },
  });

  const withoutDetails = ({
    personalDetails: _p,
    assessorDetails: _a,
    ...item
  }: Awaited<ReturnType<typeof present>>[number]) => item;

  return {
    async list(query: { status?: ModerationStatus; cursor?: string; limit?: number }) {
      const where = new Conditions();
      if (query.status) where.add('x.status = ?', query.status);
      // One statement: each profile with its user's email, its onboarding's name and its photo's asset.
      const { items, meta } = await keysetRows<ListRow>(read, pageRequest(query as Record<string, unknown>), {
        select: `x.id, x.user_id AS "userId", NULLIF(concat_ws(' ', ${namePart('firstName')}, ${namePart('lastName')}), '') AS name,
          u.email, ${peopleSql.photoAssetId('x.user_id')} AS photo, x.status, ${isoTime('x.created_at')} AS "createdAt"`,
        from: `cap.assessor_profiles x ${peopleSql.joins('x.user_id', 'assessor')}`,
        where,
        key: 'x.id',
        desc: true,
      });
      const urlOf = await people.photos.urls(items.map((item) => item.photo));
      return { items: items.map((item) => ({ ...item, photo: urlOf(item.photo) })), meta };
    },

    summary: () => moderation.summary(),

    async detail(id: string) {
      const profile = await AssessorProfile.findByPk(id);
      if (!profile) throw notFound(`No assessor has the id ${id}.`);
      // Its rows, then the names of their centres and where their applications are (two statements each: no page is read by them).
      const select = <T extends object>(sql: string) =>
        AssessorProfile.sequelize!.query<T>(sql, { type: QueryTypes.SELECT, bind: [id] });
      const [retained, assignments] = await Promise.all([
        select<{ centre_id: string; preferred_role: string; responded_at: Date | null }>(
          `SELECT r.centre_id, r.preferred_role, r.responded_at FROM cap.retained_requests r
            WHERE r.assessor_id = $1 AND r.status = 'approved' ORDER BY r.responded_at, r.id`,
        ),
        select<{
          application_id: string;
          centre_id: string;
          role: string;
          lead: boolean;
          assigned_at: Date;
          ended_at: Date | null;
        }>(
          `SELECT x.application_id, x.centre_id, x.role, x.lead, x.assigned_at, x.ended_at
             FROM cap.application_assessors x WHERE x.assessor_id = $1 ORDER BY x.assigned_at DESC, x.id DESC LIMIT 100`,
        ),
      ]);
      const [centreRows, states] = await Promise.all([
        centres.findAll(retained.map((r) => r.centre_id)),
        applications.statesOf(assignments.map((a) => a.application_id)),
      ]);
      return {
        ...(await present([profile]))[0]!,
        centres: retained.map((c) => ({
          centreId: c.centre_id,
          name: centreRows.find((centre) => centre.id === c.centre_id)!.name,
          preferredRole: c.preferred_role,
          retainedSince: c.responded_at ? c.responded_at.toISOString() : null,
        })),
        applications: assignments.map((a) => ({
          applicationId: a.application_id,
          centreId: a.centre_id,
          role: a.role,
          lead: a.lead,
          status: states.get(a.application_id)!.status,
          currentStageKey: states.get(a.application_id)!.currentStageKey,
          assignedAt: a.assigned_at.toISOString(),
          endedAt: a.ended_at ? a.ended_at.toISOString() : null,
        })),
      };
    },

    /** The approval alone, answering nothing (the provider states' "approved assessor"). */
    approve: async (id: string) => void (await moderation.one(id, 'approve')),
    act: async (id: string, action: ModerationAction) =>
      withoutDetails((await present([await moderation.one(id, action)]))[0]!),
    delete: async (id: string) => {
      await moderation.one(id, 'delete');
      return { deleted: true as const };
    },
    bulk: async (ids: string[], action: BulkAction) =>
      (await present(await moderation.all(ids, action))).map(withoutDetails),
  };
}

export type AdminAssessors = ReturnType<typeof createAdminAssessors>;
