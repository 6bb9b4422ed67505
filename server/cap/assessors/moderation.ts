import { Op, QueryTypes } from 'sequelize';
import { notFound } from '../../platform/http/errors.ts';
import { keysetPage, pageRequest } from '../../platform/http/pagination.ts';
import type { AssessorProfile } from './models.ts';
import type { AssessorService } from './service.ts';
import { valueAt, type JsonObject } from '../../platform/http/merge-patch.ts';
import { createModeration, type BulkAction } from '../people/moderation/bulk.ts';
import type { ModerationAction } from '../people/moderation/lifecycle.ts';
import type { PassportPhotos } from '../people/onboarding/passport-photos.ts';
import type { OnboardingService } from '../people/onboarding/service.ts';
import type { UserService } from '../people/service.ts';
import type { ModerationStatus } from '../people/vocabulary.ts';

/**
 * The admins' side of assessors: the list (newest first, with who they are from their onboarding),
 * the summary, the detail, and their moderation (moderation/lifecycle.ts), one at a time or in bulk.
 */
export function createAdminAssessors(assessors: AssessorService, onboarding: OnboardingService, users: UserService, photos: PassportPhotos) {
  const { AssessorProfile } = assessors.models;
  const { Onboarding } = onboarding.models;
  const { CapUser } = users.models;

  /** Each profile with the email and the assessor onboarding of its user. */
  async function present(profiles: AssessorProfile[]) {
    const userIds = profiles.map((p) => p.userId);
    const [people, drafts, photoOf] = await Promise.all([
      CapUser.findAll({ where: { userId: { [Op.in]: userIds } }, attributes: ['userId', 'email'] }),
      Onboarding.findAll({ where: { userId: { [Op.in]: userIds }, persona: 'assessor' }, attributes: ['userId', 'data'] }),
      photos.ofUsers(userIds),
    ]);
    return profiles.map((profile) => {
      const data = (drafts.find((d) => d.userId === profile.userId)?.data ?? {}) as JsonObject;
      const name = ['firstName', 'lastName'].map((field) => valueAt(data, `personalDetails.${field}`)).filter(Boolean).join(' ');
      return {
        id: profile.id,
        userId: profile.userId,
        name: name || null,
        email: people.find((p) => p.userId === profile.userId)?.email ?? '',
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
      const named = uses.filter(([count]) => count > 0).map(([count, noun]) => `${count} ${noun}${count === 1 ? '' : 's'}`);
      return named.length ? `it has ${named.join(', ')}` : undefined;
    },
    // The profile and the assessor onboarding go: the person may onboard again.
    async remove(profile, transaction) {
      await Onboarding.destroy({ where: { userId: profile.userId, persona: 'assessor' }, transaction });
      await profile.destroy({ transaction });
    },
  });

  const withoutDetails = ({ personalDetails: _p, assessorDetails: _a, ...item }: Awaited<ReturnType<typeof present>>[number]) => item;

  return {
    async list(query: { status?: ModerationStatus; cursor?: string; limit?: number }) {
      const where = query.status ? { status: query.status } : {};
      const { items, meta } = await keysetPage(AssessorProfile, pageRequest(query as Record<string, unknown>), { where });
      return { items: (await present(items)).map(withoutDetails), meta };
    },

    summary: () => moderation.summary(),

    async detail(id: string) {
      const profile = await AssessorProfile.findByPk(id);
      if (!profile) throw notFound(`No assessor has the id ${id}.`);
      const select = <T extends object>(sql: string) => AssessorProfile.sequelize!.query<T>(sql, { type: QueryTypes.SELECT, bind: [id] });
      const [centres, applications] = await Promise.all([
        select<{ centre_id: string; name: string; preferred_role: string; responded_at: Date | null }>(
          `SELECT r.centre_id, c.name, r.preferred_role, r.responded_at FROM cap.retained_requests r JOIN cap.centres c ON c.id = r.centre_id
            WHERE r.assessor_id = $1 AND r.status = 'approved' ORDER BY r.responded_at, r.id`,
        ),
        select<{ application_id: string; centre_id: string; role: string; lead: boolean; status: string; stage: string; assigned_at: Date; ended_at: Date | null }>(
          `SELECT x.application_id, x.centre_id, x.role, x.lead, a.status, a.current_stage_key AS stage, x.assigned_at, x.ended_at
             FROM cap.application_assessors x JOIN cap.applications a ON a.id = x.application_id
            WHERE x.assessor_id = $1 ORDER BY x.assigned_at DESC, x.id DESC LIMIT 100`,
        ),
      ]);
      return {
        ...(await present([profile]))[0]!,
        centres: centres.map((c) => ({ centreId: c.centre_id, name: c.name, preferredRole: c.preferred_role, retainedSince: c.responded_at ? c.responded_at.toISOString() : null })),
        applications: applications.map((a) => ({
          applicationId: a.application_id, centreId: a.centre_id, role: a.role, lead: a.lead, status: a.status, currentStageKey: a.stage,
          assignedAt: a.assigned_at.toISOString(), endedAt: a.ended_at ? a.ended_at.toISOString() : null,
        })),
      };
    },

    act: async (id: string, action: ModerationAction) => withoutDetails((await present([await moderation.one(id, action)]))[0]!),
    delete: async (id: string) => {
      await moderation.one(id, 'delete');
      return { deleted: true as const };
    },
    bulk: async (ids: string[], action: BulkAction) => (await present(await moderation.all(ids, action))).map(withoutDetails),
  };
}

export type AdminAssessors = ReturnType<typeof createAdminAssessors>;
