import { AppError, forbidden } from '../../platform/http/errors.ts';
import type { Call, Handler } from '../../platform/http/operations.ts';
import type { Reply } from '../../platform/http/reply.ts';
import type { CentreService } from '../centres/service.ts';
import type { OnboardingService } from '../onboarding/service.ts';
import { resolveActingContext, type ActingContext, type Memberships } from './resolve.ts';

export type ContextHandler = (call: Call, context: ActingContext) => Promise<Reply> | Reply;
export type CentreContext = Extract<ActingContext, { persona: 'centre' }>;
export type CentreHandler = (call: Call, context: CentreContext) => Promise<Reply> | Reply;

/**
 * The acting context of authenticated, non-exempt operations: loads the caller's memberships and
 * applies the persona table to the `X-CAP-PERSONA` / `X-CAP-CENTRE-ID` headers the document declares.
 */
export function createActingContexts(onboarding: OnboardingService, centres: CentreService) {
  async function membershipsOf(userId: string): Promise<Memberships> {
    const [completed, staff] = await Promise.all([
      onboarding.models.Onboarding.findAll({ where: { userId, status: 'completed' }, attributes: ['persona'] }),
      centres.membershipsOf(userId, ['active']),
    ]);
    const done = new Set(completed.map((o) => o.persona));
    return {
      candidate: done.has('candidate'),
      assessor: done.has('assessor'),
      awardingBody: false,
      centres: staff.map((s) => ({ centreId: s.centreId, role: s.role })),
    };
  }

  async function resolve(call: Call): Promise<ActingContext> {
    const resolution = resolveActingContext(await membershipsOf(call.principal!.userId!), {
      persona: call.headers['x-cap-persona'],
      centreId: call.headers['x-cap-centre-id'],
    });
    if (!resolution.ok) throw new AppError(resolution.error.status, resolution.error.code, resolution.error.message);
    return resolution.context;
  }

  return {
    membershipsOf,
    resolve,
    /** A handler that runs in the caller's acting context (resolved, or the call fails with the table's error). */
    bound: (handler: ContextHandler): Handler => async (call) => handler(call, await resolve(call)),
    /** A handler of a centre operation: the context must be the centre persona, which gives the centre and role. */
    centre: (handler: CentreHandler): Handler => async (call) => {
      const context = await resolve(call);
      if (context.persona !== 'centre') {
        throw forbidden('auth.centre_persona_required', `This acts for a centre, and you are acting as ${context.persona}: send X-CAP-PERSONA: centre.`);
      }
      return handler(call, context);
    },
  };
}

export type ActingContexts = ReturnType<typeof createActingContexts>;
