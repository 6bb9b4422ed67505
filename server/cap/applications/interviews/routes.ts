import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Call, CallInput, Handler, Handlers } from '../../../platform/http/operations.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import { viewerOf } from '../service.ts';
import type { ActingContexts, CapAuth } from '../../people/index.ts';
import type { Caller, CentreActor, Interviews } from './service.ts';

/**
 * Interviews (openapi/cap/interviews.yaml): set up by the centre, read by the application's candidate,
 * centre and assigned assessors, written by the panel (assessors) and signed and appealed by the candidate.
 */
export function interviewRoutes(auth: CapAuth, contexts: ActingContexts, interviews: Interviews): Handlers<operations> {
  const forCentre = <In extends CallInput>(
    handler: (call: Call<In>, actor: CentreActor) => ReturnType<Handler>,
  ): Handler<In> =>
    contexts.centre<In>((call, context) =>
      handler(call, { userId: auth.caller(call).userId, centreId: context.centreId }),
    );
  const reading = (
    read: (
      context: Parameters<Parameters<ActingContexts['bound']>[0]>[1],
      userId: string,
      applicationId: string,
    ) => Promise<unknown>,
  ): Handler =>
    contexts.bound(async (call, context) => ok(await read(context, auth.caller(call).userId, call.params.id)));
  // The caller's own token proves which uploaded files (signatures) are theirs.
  const caller = (call: Call): Caller => ({ userId: auth.caller(call).userId, bearer: auth.token(call) });
  return {
    assignFacilitator: forCentre(async (call, actor) =>
      ok(await interviews.assignFacilitator(actor, call.params.id, call.body.assessorId)),
    ),
    getInterviewPanel: reading(interviews.panel),
    setInterviewPanel: forCentre(async (call, actor) =>
      ok(await interviews.setPanel(actor, call.params.id, call.body.members)),
    ),
    getInterviewSchedule: reading(interviews.schedule),
    setInterviewSchedule: forCentre(async (call, actor) =>
      ok(await interviews.setSchedule(actor, call.params.id, call.body)),
    ),
    listInterviewForms: reading(interviews.forms),
    putInterviewForm: contexts.as('assessor', async (call) =>
      ok(await interviews.putForm(auth.caller(call).userId, call.params.id, call.params.formType, call.body)),
    ),
    signoffInterviewForm: contexts.as('candidate', async (call) =>
      ok(await interviews.signoff(caller(call), call.params.id, call.params.formType, call.body)),
    ),
    evaluateInterview: contexts.as('assessor', async (call) =>
      ok(await interviews.evaluate(caller(call), call.params.id, call.body)),
    ),
    raiseAppeal: contexts.as('candidate', async (call) =>
      created(await interviews.appeal(auth.caller(call).userId, call.params.id, call.body.comment)),
    ),
    resolveAppeal: forCentre(async (call, actor) =>
      ok(await interviews.resolveAppeal(actor, call.params.id, call.params.appealId, call.body)),
    ),
    getRecommendations: reading(interviews.recommendations),
    closeRecommendations: contexts.bound(async (call, context) =>
      ok(await interviews.closeRecommendations(viewerOf(context, auth.caller(call).userId), call.params.id)),
    ),
    listCentrePanels: contexts.centre(async (call, context) => {
      const { items, meta } = await interviews.listCentrePanels(context.centreId, call.query);
      return ok(items, { ...meta });
    }),
    createCentrePanel: forCentre(async (call, actor) => created(await interviews.createCentrePanel(actor, call.body))),
    listInterviewTemplates: contexts.centre(async (call, context) => {
      const { items, meta } = await interviews.listTemplates(context.centreId, call.query);
      return ok(items, { ...meta });
    }),
    createInterviewTemplate: forCentre(async (call, actor) =>
      created(await interviews.createTemplate(actor, call.body)),
    ),
    scheduleFromInterviewTemplate: forCentre(async (call, actor) =>
      ok(await interviews.scheduleFromTemplate(actor, call.params.id, call.body)),
    ),
    listInterviewBookings: contexts.centre(async (call, context) => {
      const { items, meta } = await interviews.listBookings(context.centreId, call.query);
      return ok(items, { ...meta });
    }),
    rescheduleInterviewBooking: forCentre(async (call, actor) =>
      ok(await interviews.reschedule(actor, call.params.id, call.body)),
    ),
  };
}
