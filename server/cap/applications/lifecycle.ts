import type { ApplicationType } from './vocabulary.ts';
/**
 * The application lifecycle as data. An application moves through the stages of its type in order;
 * each move is a row of the table: from which stage, by whom, under which guards, to where, and what
 * it emits. `applyMove` (service.ts) is the only writer of an application's stage and status, and it
 * refuses any move the table does not hold.
 */

export const rplStages = [
  'application_form',
  'payment',
  'folder_arrangement',
  'interview',
  'internal_verification',
  'external_verification',
  'certification',
] as const;
/** NSQ: induction, the units and direct observation, then the same verification (the assessment issue uses it). */
export const nsqStages = [
  'application_form',
  'payment',
  'induction',
  'unit_assessment',
  'internal_verification',
  'external_verification',
  'certification',
] as const;
export type StageKey = (typeof rplStages)[number] | (typeof nsqStages)[number];
export const stagesOf: Record<ApplicationType, readonly StageKey[]> = { RPL: rplStages, NSQ: nsqStages };

export const stageLabels: Record<StageKey, string> = {
  application_form: 'Application form',
  payment: 'Payment',
  folder_arrangement: 'Folder arrangement',
  interview: 'Interview',
  induction: 'Induction',
  unit_assessment: 'Unit assessment',
  internal_verification: 'Internal verification',
  external_verification: 'External verification',
  certification: 'Certification',
};

export const applicationStatuses = ['draft', 'in_progress', 'certified', 'rejected', 'withdrawn'] as const;
export type ApplicationStatus = (typeof applicationStatuses)[number];
export const stageStatuses = [
  'not_started',
  'awaiting_payment',
  'in_progress',
  'under_review',
  'scheduled',
  'successful',
  'rejected',
] as const;
export type StageStatus = (typeof stageStatuses)[number];

/**
 * Who makes a move: the candidate, the centre's staff, the interview panel's lead, an NSQ unit assessor, the application's
 * internal verifier (an assessor the centre assigned), the awarding body it was forwarded to, or the
 * platform itself (an event).
 */
export type Mover =
  'candidate' | 'centre' | 'panel' | 'unit_assessor' | 'internal_verifier' | 'awarding_body' | 'platform';
export type MoveAction =
  | 'submit'
  | 'payment_completed'
  | 'approve'
  | 'reject'
  | 'forward'
  | 'certify'
  | 'certify_bypass'
  | 'reopen'
  | 'withdraw';
/**
 * A check the service makes before a move; it names the problem when it fails. `draft_complete`: every
 * required field; `not_forwarded` / `forwarded_with_ev`: the application went to an awarding body once,
 * and it assigned an external verifier; `certify_bypass_on`: the CAP_CENTRE_CERTIFY_BYPASS flag;
 * `induction_submitted`: the NSQ candidate sent their induction form; `units_signed_off`: a unit assessor
 * signed off every unit of the induction's wish-list.
 */
export type Guard =
  | 'draft_complete'
  | 'not_forwarded'
  | 'forwarded_with_ev'
  | 'certify_bypass_on'
  | 'induction_submitted'
  | 'units_signed_off';

export interface Move {
  action: MoveAction;
  from: StageKey;
  /** The next stage (the same one for a move within a stage), or the application's final status. */
  to: StageKey | 'certified' | 'rejected' | 'withdrawn';
  /** The statuses the application may have for the move; by default an open one (draft or in progress). */
  fromStatus?: ApplicationStatus[];
  by: Mover[];
  guards: Guard[];
  emits?:
    | 'application.submitted'
    | 'application.paid'
    | 'application.stage_changed'
    | 'application.forwarded'
    | 'application.certified'
    | 'application.rejected'
    | 'application.withdrawn';
  /** The outcome a review move writes into the stage history (what `ivApproved=true` looks for). */
  outcome?: ReviewOutcome;
  /** For a move within a stage: the stage's status after it. */
  stageStatus?: StageStatus;
}

export type ReviewOutcome = 'APPROVED' | 'REJECTED';

/** Who reviews a stage the centre reviews: also the interview panel's lead, or an NSQ unit assessor. */
const reviewersOf = (stage: StageKey): Mover[] =>
  stage === 'interview' ? ['centre', 'panel'] : stage === 'unit_assessment' ? ['centre', 'unit_assessor'] : ['centre'];
const approvalGuards = (stage: StageKey): Guard[] =>
  stage === 'induction' ? ['induction_submitted'] : stage === 'unit_assessment' ? ['units_signed_off'] : [];

/** Approving a stage into the next, or rejecting the application there, by its movers. */
function reviews(stages: readonly StageKey[], from: StageKey, by: Mover[], guards: Guard[] = []): Move[] {
  return [
    {
      action: 'approve',
      from,
      to: stages[stages.indexOf(from) + 1]!,
      by,
      guards,
      emits: 'application.stage_changed',
      outcome: 'APPROVED',
    },
    { action: 'reject', from, to: 'rejected', by, guards, emits: 'application.rejected', outcome: 'REJECTED' },
  ];
}

/**
 * After payment the centre reviews its own stages (folder and interview; induction and units); the
 * internal verifier reviews internal verification; the centre forwards the application to its awarding
 * body, which reviews external verification (after assigning the external verifier) and certifies by
 * issuing the certificate. With CAP_CENTRE_CERTIFY_BYPASS on, the centre may certify from any stage after
 * payment without a certificate (a QA shortcut).
 */
function tableOf(type: ApplicationType): Move[] {
  const stages = stagesOf[type];
  const afterPayment = stages.slice(2);
  const centreReviewed = stages.slice(2, stages.indexOf('internal_verification'));
  return [
    {
      action: 'submit',
      from: 'application_form',
      to: 'payment',
      by: ['candidate'],
      guards: ['draft_complete'],
      emits: 'application.submitted',
    },
    {
      action: 'payment_completed',
      from: 'payment',
      to: stages[2]!,
      by: ['platform'],
      guards: [],
      emits: 'application.paid',
    },
    // The interview's outcome is the panel lead's (interviews/service.ts); the centre's review may still decide it.
    // NSQ: the induction moves on once its form is sent; the units once every one is signed off (the last
    // sign-off moves it, nsq/service.ts). Rejecting needs no guard.
    ...centreReviewed.flatMap((from) =>
      reviews(stages, from, reviewersOf(from)).map((move) =>
        move.action === 'approve' ? { ...move, guards: approvalGuards(from) } : move,
      ),
    ),
    ...reviews(stages, 'internal_verification', ['internal_verifier']),
    {
      action: 'forward',
      from: 'external_verification',
      to: 'external_verification',
      by: ['centre'],
      guards: ['not_forwarded'],
      emits: 'application.forwarded',
      stageStatus: 'under_review',
    },
    ...reviews(stages, 'external_verification', ['awarding_body'], ['forwarded_with_ev']),
    {
      action: 'certify',
      from: 'certification',
      to: 'certified',
      by: ['awarding_body'],
      guards: [],
      emits: 'application.certified',
      outcome: 'APPROVED',
    },
    ...afterPayment.map((from): Move => ({
      action: 'certify_bypass',
      from,
      to: 'certified',
      by: ['centre'],
      guards: ['certify_bypass_on'],
      emits: 'application.certified',
    })),
    // The candidate withdraws an open application at any stage before it is certified (payments/service.ts
    // refunds one withdrawn before its assessment starts).
    ...stages.map((from): Move => ({
      action: 'withdraw',
      from,
      to: 'withdrawn',
      by: ['candidate'],
      guards: [],
      emits: 'application.withdrawn',
    })),
    // An upheld appeal (interviews/service.ts) reopens a rejected application at the stage that rejected it.
    ...[...centreReviewed, 'internal_verification' as const, 'external_verification' as const].map((from): Move => ({
      action: 'reopen',
      from,
      to: from,
      fromStatus: ['rejected'],
      by: ['centre'],
      guards: [],
      emits: 'application.stage_changed',
      stageStatus: 'in_progress',
    })),
  ];
}

export const lifecycles: Record<ApplicationType, Move[]> = { RPL: tableOf('RPL'), NSQ: tableOf('NSQ') };

export function findMove(type: ApplicationType, from: StageKey, action: MoveAction): Move | undefined {
  return lifecycles[type].find((move) => move.from === from && move.action === action);
}

/** The status a stage has when it is entered: the payment stage waits for the payment. */
export const enteredStatus = (stage: StageKey): StageStatus =>
  stage === 'payment' ? 'awaiting_payment' : 'in_progress';
