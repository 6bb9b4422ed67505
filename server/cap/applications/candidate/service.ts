import type { Sequelize } from 'sequelize';
import { unprocessable } from '../../../platform/http/errors.ts';
import { Conditions, keysetRows } from '../../../platform/db/keyset.ts';
import { preparedReads } from '../../../platform/db/prepared.ts';
import { pageRequest } from '../../../platform/http/pagination.ts';
import { stageLabels, type StageKey } from '../lifecycle.ts';
import type { Applications, Viewer } from '../service.ts';
import { valueAt } from '../../../platform/http/merge-patch.ts';
import type { AssetUrls, OrchestratorHttp } from '../../../contracts/orchestrator-client.ts';
import { catalogueSql } from '../../catalogue/index.ts';
import { centresSql } from '../../centres/index.ts';
import { peopleSql, type People } from '../../people/index.ts';

interface MoveRow {
  id: string;
  application_id: string;
  action: string;
  from_stage: string;
  to_stage: string;
  actor: string;
  actor_name: string | null;
  feedback: string | null;
  status: string | null;
  created_at: Date;
}

/** What each move of the lifecycle reads as in a candidate's timeline. */
function eventOf(move: MoveRow) {
  const label = (stage: string) => stageLabels[stage as StageKey] ?? stage;
  const who =
    (
      {
        centre: 'The centre',
        internal_verifier: 'The internal verifier',
        awarding_body: 'The awarding body',
      } as Record<string, string>
    )[move.actor] ?? 'The platform';
  const titles: Record<string, [string, string]> = {
    submit: ['Application submitted', 'The application was submitted and now waits for payment.'],
    payment_completed: [
      'Payment received',
      `The payment was received; the application moved to ${label(move.to_stage).toLowerCase()}.`,
    ],
    approve: [
      `${label(move.from_stage)} approved`,
      `${who} approved ${label(move.from_stage).toLowerCase()}; next: ${label(move.to_stage).toLowerCase()}.`,
    ],
    reject: ['Application rejected', `${who} rejected the application at ${label(move.from_stage).toLowerCase()}.`],
    forward: [
      'Forwarded to the awarding body',
      'The centre forwarded the application to its awarding body for external verification.',
    ],
    certify: ['Certified', 'The awarding body issued the certificate: the application is certified.'],
    certify_bypass: [
      'Certified',
      'The centre certified the application without a certificate (CAP_CENTRE_CERTIFY_BYPASS).',
    ],
  };
  const [title, description] = titles[move.action] ?? [move.action, ''];
  return {
    id: move.id,
    applicationId: move.application_id,
    title,
    description,
    eventType: move.action,
    actorRole: move.actor,
    ...(move.actor_name ? { actorName: move.actor_name } : {}),
    occurredAt: move.created_at.toISOString(),
    metadata: {
      fromStage: move.from_stage,
      toStage: move.to_stage,
      ...(move.feedback ? { feedback: move.feedback } : {}),
      ...(move.status ? { outcome: move.status } : {}),
    },
  };
}

/**
 * The candidate's own corner: their profile as CAP shows it, their signature (a storage asset), and the
 * timeline of their applications (one event per move of the lifecycle).
 */
export function createCandidateArea(deps: {
  sequelize: Sequelize;
  people: Pick<People, 'users' | 'onboardings'>;
  applications: Applications;
  assetUrls: AssetUrls;
  ownsAsset: OrchestratorHttp['ownsAsset'];
}) {
  const { sequelize, people } = deps;
  const read = preparedReads(sequelize);

  async function events(where: Conditions, query: { cursor?: string; limit?: number }) {
    const { items, meta } = await keysetRows<MoveRow>(read, pageRequest(query as Record<string, unknown>), {
      // Who acted, by the name they have where they acted: centre staff, awarding-body member, else their
      // onboarding. One statement with the other modules' names: a page of moves is read with its names.
      select: `m.*, coalesce(
         ${centresSql.staffName('m.actor_user_id', 'a.centre_id')},
         ${catalogueSql.memberName('m.actor_user_id')},
         ${peopleSql.onboardedName('m.actor_user_id', "m.actor = 'internal_verifier'")}
       ) AS actor_name`,
      from: 'cap.application_moves m JOIN cap.applications a ON a.id = m.application_id',
      alias: 'm',
      where,
      key: 'm.id',
      desc: true,
    });
    return { items: items.map(eventOf), meta };
  }

  return {
    async profile(userId: string) {
      const user = (await people.users.recordsOf([userId])).get(userId)!;
      const onboarding = await people.onboardings.dataOf(userId, 'candidate');
      const name = ['firstName', 'lastName']
        .map((f) => valueAt(onboarding, `personalDetails.${f}`))
        .filter(Boolean)
        .join(' ');
      return { name, identityVerified: user.identityVerified, createdAt: user.createdAt.toISOString() };
    },

    async signature(userId: string) {
      const assetId = await people.users.signatureOf(userId);
      const urlOf = await deps.assetUrls([assetId]);
      return { assetId, url: urlOf(assetId) };
    },

    /** Keeps a signature the candidate uploaded themselves (checked with their own token); anything else is 422. */
    async setSignature(userId: string, bearer: string, assetId: string) {
      if (!(await deps.ownsAsset(bearer, assetId))) {
        throw unprocessable(
          'candidate.signature_not_found',
          'You have no uploaded file with that asset id: upload the signature first (POST /v1/ol/storage/upload, purpose signature).',
          [{ field: 'assetId', issue: 'is not a file you uploaded' }],
        );
      }
      await people.users.setSignature(userId, assetId);
      return { assetId, url: (await deps.assetUrls([assetId]))(assetId) };
    },

    /** The timeline of one application the viewer may see, newest first. */
    async applicationEvents(viewer: Viewer, applicationId: string, query: { cursor?: string; limit?: number }) {
      await deps.applications.visible(viewer, applicationId);
      return events(new Conditions().add('m.application_id = ?', applicationId), query);
    },

    /** The timeline of all of the candidate's applications, newest first. */
    candidateEvents: (userId: string, query: { cursor?: string; limit?: number }) =>
      events(new Conditions().add('a.candidate_user_id = ?', userId), query),
  };
}

export type CandidateArea = ReturnType<typeof createCandidateArea>;
