/**
 * The application lifecycle as data. An application moves through the stages of its type in order;
 * each move is a row of the table: from which stage, by whom, under which guards, to where, and what
 * it emits. `applyMove` (service.ts) is the only writer of an application's stage and status, and it
 * refuses any move the table does not hold.
 */
import type { ApplicationType } from '../vocabulary.ts';

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
export const nsqStages = ['application_form', 'payment', 'induction', 'unit_assessment', 'internal_verification', 'external_verification', 'certification'] as const;
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
export const stageStatuses = ['not_started', 'awaiting_payment', 'in_progress', 'under_review', 'scheduled', 'successful', 'rejected'] as const;
export type StageStatus = (typeof stageStatuses)[number];

/** Who makes a move: the candidate, the centre's staff, the interview panel's lead, or the platform itself (an event). */
export type Mover = 'candidate' | 'centre' | 'panel' | 'platform';
export type MoveAction = 'submit' | 'payment_completed' | 'approve' | 'reject' | 'certify' | 'reopen';
/** A check the service makes before a move; it names the problem when it fails. */
export type Guard = 'draft_complete';

export interface Move {
  action: MoveAction;
  from: StageKey;
  /** The next stage, or the application's final status. */
  to: StageKey | 'certified' | 'rejected';
  /** The statuses the application may have for the move; by default an open one (draft or in progress). */
  fromStatus?: ApplicationStatus[];
  by: Mover[];
  guards: Guard[];
  emits?: 'application.submitted' | 'application.paid' | 'application.stage_changed' | 'application.certified' | 'application.rejected';
  /** The outcome a review move writes into the stage history (what `ivApproved=true` looks for). */
  outcome?: ReviewOutcome;
}

export type ReviewOutcome = 'APPROVED' | 'REJECTED';

/** The stages after payment that a centre reviews, approving one into the next or rejecting it. */
const reviewed = (type: ApplicationType) => stagesOf[type].slice(2, -1);
/** The interview's outcome is the panel lead's (interviews/service.ts); the centre's review may still decide it. */
const reviewers = (stage: StageKey): Mover[] => (stage === 'interview' ? ['centre', 'panel'] : ['centre']);

function tableOf(type: ApplicationType): Move[] {
  const stages = stagesOf[type];
  return [
    { action: 'submit', from: 'application_form', to: 'payment', by: ['candidate'], guards: ['draft_complete'], emits: 'application.submitted' },
    { action: 'payment_completed', from: 'payment', to: stages[2]!, by: ['platform'], guards: [], emits: 'application.paid' },
    ...reviewed(type).map((from): Move => ({ action: 'approve', from, to: stages[stages.indexOf(from) + 1]!, by: reviewers(from), guards: [], emits: 'application.stage_changed', outcome: 'APPROVED' })),
    ...reviewed(type).map((from): Move => ({ action: 'reject', from, to: 'rejected', by: reviewers(from), guards: [], emits: 'application.rejected', outcome: 'REJECTED' })),
    // An upheld appeal reopens a rejected application at the stage that rejected it.
    ...reviewed(type).map((from): Move => ({ action: 'reopen', from, to: from, fromStatus: ['rejected'], by: ['centre'], guards: [], emits: 'application.stage_changed' })),
    { action: 'certify', from: 'certification', to: 'certified', by: ['centre'], guards: [], emits: 'application.certified', outcome: 'APPROVED' },
  ];
}

export const lifecycles: Record<ApplicationType, Move[]> = { RPL: tableOf('RPL'), NSQ: tableOf('NSQ') };

export function findMove(type: ApplicationType, from: StageKey, action: MoveAction): Move | undefined {
  return lifecycles[type].find((move) => move.from === from && move.action === action);
}

/** The status a stage has when it is entered: the payment stage waits for the payment. */
export const enteredStatus = (stage: StageKey): StageStatus => (stage === 'payment' ? 'awaiting_payment' : 'in_progress');
