import type { ErrorDetail } from '../../../platform/http/errors.ts';
import { defineLifecycle, type StatusOf } from '../../../platform/lifecycle.ts';
import type { PanelSeat } from './models.ts';

export const interviewFormTypes = [
  'records',
  'assessment_grid',
  'practical_observation',
  'skill_demonstration',
] as const;
export type InterviewFormType = (typeof interviewFormTypes)[number];
export const interviewModes = ['physical', 'online'] as const;
export type InterviewMode = (typeof interviewModes)[number];

/**
 * An application's interview, as data: made `scheduled` when the centre seats a panel or books a
 * sitting (`open`), `completed` when the lead gives the outcome; booking a sitting again (`schedule`)
 * or reopening the application after an appeal (`reopen`, a new round) makes it scheduled again.
 * `cancelled` is in the client's vocabulary; nothing leads to it.
 */
export const interviewLifecycle = defineLifecycle({
  subject: 'interview',
  statuses: ['scheduled', 'completed', 'cancelled'],
  movers: ['centre', 'lead'],
  moves: {
    open: { from: [null], to: 'scheduled', by: ['centre'] },
    schedule: { from: ['scheduled', 'completed'], to: 'scheduled', by: ['centre'] },
    complete: { from: ['scheduled', 'completed'], to: 'completed', by: ['lead'] },
    reopen: { from: ['scheduled', 'completed'], to: 'scheduled', by: ['centre'] },
  },
});
export type InterviewStatus = StatusOf<typeof interviewLifecycle>;

/** An interview form, as data: the lead saves it as a `draft` or `completed`, either way, until the candidate signs it (then it no longer changes). */
export const interviewFormLifecycle = defineLifecycle({
  subject: 'interview form',
  statuses: ['draft', 'completed'],
  movers: ['lead'],
  moves: {
    draft: { from: [null, 'draft', 'completed'], to: 'draft', by: ['lead'] },
    complete: { from: [null, 'draft', 'completed'], to: 'completed', by: ['lead'] },
  },
});

/** A candidate's appeal of a rejected application: `open` until the centre resolves it, reopening the application or dismissing the appeal (409 `appeal.resolved` after). */
export const appealLifecycle = defineLifecycle({
  subject: 'appeal',
  statuses: ['open', 'resolved_reopened', 'resolved_dismissed'],
  movers: ['candidate', 'centre'],
  moves: {
    raise: { from: [null], to: 'open', by: ['candidate'] },
    reopen: { from: ['open'], to: 'resolved_reopened', by: ['centre'] },
    dismiss: { from: ['open'], to: 'resolved_dismissed', by: ['centre'] },
  },
});
export type SignatureMode = 'upload' | 'default' | 'typed';
/** The panel's finding, written by the lead. */
export type InterviewDecision = 'competent' | 'not_yet_competent';
/** What the lead's outcome does to the application: approve moves it on to internal verification, reject closes it. */
export type InterviewOutcome = 'approve' | 'reject';
export type AppealStatus = StatusOf<typeof appealLifecycle>;

/** The stages at which an RPL application may be given a sitting: the folder is being arranged, or it is at interview. */
export const schedulableStages = ['folder_arrangement', 'interview'];

/** The outcome the lead may give with each decision. */
export const outcomeOf: Record<InterviewDecision, InterviewOutcome> = {
  competent: 'approve',
  not_yet_competent: 'reject',
};

/**
 * The panel's shape (Limits: "3 voters plus an IV observer"): exactly three voters, exactly one of them the
 * lead, and exactly one IV observer, who may be one of the three voters or a fourth person. A seat that is
 * neither a voter nor the observer does not exist: a seat with `isObserver` false is a voter.
 * Answers the problems, by field, for a 422.
 */
export function panelProblems(members: PanelSeat[]): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const ids = members.map((m) => m.assessorId);
  if (new Set(ids).size !== ids.length)
    problems.push({
      field: 'members',
      issue: 'names an assessor twice: an observer who also votes is one seat with isObserver true and isLead as it is',
    });
  const voters = members.filter((m) => !m.isObserver || isVotingObserver(m, members));
  const observers = members.filter((m) => m.isObserver);
  if (voters.length !== 3)
    problems.push({ field: 'members', issue: `has ${voters.length} voter(s): a panel has exactly 3` });
  if (voters.filter((m) => m.isLead).length !== 1)
    problems.push({ field: 'members', issue: 'needs exactly one lead among the voters' });
  if (observers.length !== 1)
    problems.push({ field: 'members', issue: `has ${observers.length} IV observer(s): a panel has exactly 1` });
  if (members.some((m) => m.isLead && m.isObserver && !isVotingObserver(m, members)))
    problems.push({ field: 'members', issue: 'the lead must be a voter' });
  return problems;
}

/**
 * Whether an observer also votes: with four seats the observer is the fourth person (not a voter); with
 * three, the observer is one of the three voters.
 */
function isVotingObserver(seat: PanelSeat, members: PanelSeat[]): boolean {
  return seat.isObserver && members.length === 3;
}
