import { AppError, forbidden } from '../../../platform/http/errors.ts';
import type { Call, CallInput, Handler } from '../../../platform/http/operations.ts';
import type { Reply } from '../../../platform/http/reply.ts';
import { operableStatuses } from '../moderation/lifecycle.ts';
import type { Standing } from '../models.ts';
import { membershipsOf, resolveActingContext, type ActingContext } from './resolve.ts';
import type { Persona } from '../vocabulary.ts';

export type ContextHandler<In extends CallInput = any> = (
  call: Call<In>,
  context: ActingContext,
) => Promise<Reply> | Reply;
export type CentreContext = Extract<ActingContext, { persona: 'centre' }>;
export type CentreHandler<In extends CallInput = any> = (
  call: Call<In>,
  context: CentreContext,
) => Promise<Reply> | Reply;

/**
 * The acting context of authenticated, non-exempt operations: takes the caller's memberships from the
 * standing read with them (no query of its own) and applies the persona table to the `X-CAP-PERSONA`
 * and `X-CAP-CENTRE-ID` headers the document declares.
 */
export function createActingContexts(standingOf: (call: Call) => Standing) {
  async function resolve(call: Call): Promise<ActingContext> {
    const memberships = membershipsOf(standingOf(call));
    const resolution = resolveActingContext(memberships, {
      persona: call.headers['x-cap-persona'],
      centreId: call.headers['x-cap-centre-id'],
    });
    if (!resolution.ok) throw new AppError(resolution.error.status, resolution.error.code, resolution.error.message);
    const { context } = resolution;
    // The persona holds, but nobody acts for a suspended or rejected centre, or as such an assessor.
    if (context.persona === 'centre') {
      const status = memberships.centres.find((c) => c.centreId === context.centreId)!.centreStatus;
      if (!operableStatuses.includes(status))
        throw forbidden(`centre.${status}`, `The centre is ${status}: nobody can act for it.`);
    }
    if (
      context.persona === 'assessor' &&
      memberships.assessorStatus &&
      !operableStatuses.includes(memberships.assessorStatus)
    ) {
      throw forbidden(
        `assessor.${memberships.assessorStatus}`,
        `Your assessor profile is ${memberships.assessorStatus}: you cannot act as an assessor.`,
      );
    }
    return context;
  }

  return {
    resolve,
    // Generic in the call's inputs: a wrapped handler keeps the typed inputs of its operation (Handlers<operations>).
    /** A handler that runs in the caller's acting context (resolved, or the call fails with the table's error). */
    bound:
      <In extends CallInput>(handler: ContextHandler<In>): Handler<In> =>
      async (call) =>
        handler(call, await resolve(call)),
    /** A handler of an operation for one persona: the context must be that persona. */
    as:
      <In extends CallInput>(persona: Exclude<Persona, 'centre'>, handler: ContextHandler<In>): Handler<In> =>
      async (call) => {
        const context = await resolve(call);
        if (context.persona !== persona) {
          throw forbidden(
            `auth.${persona}_persona_required`,
            `This acts as ${persona}, and you are acting as ${context.persona}: send X-CAP-PERSONA: ${persona}.`,
          );
        }
        return handler(call, context);
      },
    /** A handler of a centre operation: the context must be the centre persona, which gives the centre and role. */
    centre:
      <In extends CallInput>(handler: CentreHandler<In>): Handler<In> =>
      async (call) => {
        const context = await resolve(call);
        if (context.persona !== 'centre') {
          throw forbidden(
            'auth.centre_persona_required',
            `This acts for a centre, and you are acting as ${context.persona}: send X-CAP-PERSONA: centre.`,
          );
        }
        return handler(call, context);
      },
  };
}

export type ActingContexts = ReturnType<typeof createActingContexts>;
