import { lifecycles } from './lifecycle.ts';

/**
 * Who at a centre handles an application. Applications carry no staff assignment (the client has no
 * call to assign one, and the facilitator, IV and EV are assessors), so the relation is read from the
 * stage history: the staff member handling an application is the one who made its latest centre move
 * (an approve, reject, forward, reopen or certify bypass). A paid application nobody has reviewed
 * yet has no handler; it waits in the centre's list. The staff detail's workload and
 * `GET /centre/staff/{id}/applications` use it.
 */
export const handlerUserIdOf = (alias: string) =>
  `(SELECT m.actor_user_id FROM cap.application_moves m WHERE m.application_id = ${alias}.id AND m.actor = 'centre' ORDER BY m.created_at DESC, m.id DESC LIMIT 1)`;

/** Days an application may wait at a stage for the centre's decision before it requires attention. */
export const attentionAfterDays = 7;

/**
 * The stages where the centre's staff make the next move: the lifecycle's centre moves on an
 * application in progress (the QA-only certify bypass aside; reopening a rejected one is no queue),
 * that is folder arrangement and interview, induction and unit assessment, and the forwarding at
 * external verification.
 */
export const centreDecidedStages = [
  ...new Set(
    Object.values(lifecycles).flatMap((moves) =>
      moves
        .filter((move) => move.by.includes('centre') && move.action !== 'certify_bypass' && !move.fromStatus)
        .map((move) => move.from),
    ),
  ),
];

/**
 * The staff queues: `pending` is in progress at a stage the centre decides, waiting for it (the stage
 * itself in progress, not under an awarding body's review); `requires_attention` is pending and
 * entered that stage `attentionAfterDays` or more days ago.
 */
export const staffQueues = {
  pending: (alias: string) =>
    `${alias}.status = 'in_progress' AND ${alias}.current_stage_key IN (${centreDecidedStages.map((stage) => `'${stage}'`).join(', ')})
     AND EXISTS (SELECT 1 FROM cap.application_stages s WHERE s.application_id = ${alias}.id AND s.stage_key = ${alias}.current_stage_key AND s.status = 'in_progress')`,
  requires_attention: (alias: string) =>
    `${staffQueues.pending(alias)} AND EXISTS (SELECT 1 FROM cap.application_stages s WHERE s.application_id = ${alias}.id AND s.stage_key = ${alias}.current_stage_key AND s.entered_at <= now() - interval '${attentionAfterDays} days')`,
};

export type StaffQueue = keyof typeof staffQueues;
