import type { Standing } from '../models.ts';
import type { Persona, ModerationStatus } from '../vocabulary.ts';
import type { CentreRole, CentreStatus } from '../../centres/index.ts';

/** What the caller holds, as the acting context sees it. */
export interface Memberships {
  /** A completed candidate onboarding. */
  candidate: boolean;
  /** A completed assessor onboarding. */
  assessor: boolean;
  /** The assessor profile's moderation status, or null without one. */
  assessorStatus: ModerationStatus | null;
  /** An active membership of an awarding body. */
  awardingBody: boolean;
  /** Active CentreStaff rows, oldest first, with their centre's status. */
  centres: Array<{ centreId: string; role: CentreRole; centreStatus: CentreStatus }>;
}

/** The memberships a standing (read with the caller) gives. */
export function membershipsOf(standing: Standing): Memberships {
  const completed = (persona: Persona) =>
    standing.onboardings.some((o) => o.persona === persona && o.status === 'completed');
  return {
    candidate: completed('candidate'),
    assessor: completed('assessor'),
    assessorStatus: standing.assessorStatus,
    awardingBody: standing.awardingBodyActive,
    centres: standing.centres
      .filter((c) => c.status === 'active')
      .map(({ centreId, role, centreStatus }) => ({ centreId, role, centreStatus })),
  };
}

/** The two headers, as validated by the API document (absent = undefined). */
export interface ContextHeaders {
  persona?: Persona;
  centreId?: string;
}

export type ActingContext =
  { persona: Exclude<Persona, 'centre'> } | { persona: 'centre'; centreId: string; role: CentreRole };

export interface ContextError {
  status: 400 | 403;
  code: string;
  message: string;
}

export type Resolution = { ok: true; context: ActingContext } | { ok: false; error: ContextError };

/** Which memberships make each persona a hat the caller holds (and can operate). */
export const heldWhen: Record<Persona, (m: Memberships) => boolean> = {
  candidate: (m) => m.candidate,
  centre: (m) => m.centres.length > 0,
  assessor: (m) => m.assessor,
  awarding_body: (m) => m.awardingBody,
};

/** How a header picks among the caller's options: named but not held, omitted with none, omitted with several. */
interface ChoiceRule {
  notHeld: ContextError;
  none: ContextError;
  ambiguous: ContextError;
}

/** The spec's table (platform-interfaces.md, Authentication item 8), one row per header. */
export const contextRules: { persona: ChoiceRule; centre: ChoiceRule & { notAllowed: ContextError } } = {
  persona: {
    notHeld: { status: 403, code: 'auth.persona_not_held', message: 'X-CAP-PERSONA names a persona you do not hold.' },
    none: {
      status: 403,
      code: 'auth.persona_required',
      message: 'This needs a persona: complete an onboarding or join a centre first.',
    },
    ambiguous: {
      status: 400,
      code: 'auth.persona_ambiguous',
      message: 'You hold more than one persona: choose one with X-CAP-PERSONA.',
    },
  },
  centre: {
    notHeld: {
      status: 403,
      code: 'auth.centre_not_held',
      message: 'X-CAP-CENTRE-ID names a centre where you are not active staff.',
    },
    none: { status: 403, code: 'auth.centre_not_held', message: 'You are not active staff of any centre.' },
    ambiguous: {
      status: 400,
      code: 'auth.centre_ambiguous',
      message: 'You belong to more than one centre: choose one with X-CAP-CENTRE-ID.',
    },
    notAllowed: {
      status: 400,
      code: 'auth.centre_header_not_allowed',
      message: 'X-CAP-CENTRE-ID goes only with the centre persona.',
    },
  },
};

/** A named option must be held; an omitted one defaults only when exactly one is held. */
function choose<T>(
  options: T[],
  requested: string | undefined,
  key: (option: T) => string,
  rule: ChoiceRule,
): T | ContextError {
  if (requested !== undefined) return options.find((option) => key(option) === requested) ?? rule.notHeld;
  if (options.length === 1) return options[0]!;
  return options.length === 0 ? rule.none : rule.ambiguous;
}

const isError = (value: unknown): value is ContextError =>
  typeof value === 'object' && value !== null && 'code' in value;

/** The acting context of a call: which hat the caller wears, and for a centre which centre and role. Pure. */
export function resolveActingContext(memberships: Memberships, headers: ContextHeaders): Resolution {
  const held = (Object.keys(heldWhen) as Persona[]).filter((persona) => heldWhen[persona](memberships));
  const persona = choose(held, headers.persona, (p) => p, contextRules.persona);
  if (isError(persona)) return { ok: false, error: persona };
  if (persona !== 'centre') {
    if (headers.centreId !== undefined) return { ok: false, error: contextRules.centre.notAllowed };
    return { ok: true, context: { persona } };
  }
  const centre = choose(memberships.centres, headers.centreId, (c) => c.centreId, contextRules.centre);
  if (isError(centre)) return { ok: false, error: centre };
  return { ok: true, context: { persona, centreId: centre.centreId, role: centre.role } };
}

/**
 * Paths that never take the persona headers (DESIGN.md section 6): onboarding, account, identity,
 * public catalogue; and the admin back office, which platform permissions authorise, not a persona.
 */
export const exemptPaths = [
  /^\/onboarding(\/|$)/,
  /^\/me(\/|$)/,
  /^\/identity-verification(\/|$)/,
  /^\/(sectors|trades|centres)(\/|$)/,
  /^\/admin(\/|$)/,
];

export const isExempt = (path: string) => exemptPaths.some((pattern) => pattern.test(path));
