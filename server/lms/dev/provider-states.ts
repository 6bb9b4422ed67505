import { applyStates, loadStateDefinitions, substitute, type StateDefinition } from '../../../fixtures/states/definitions.ts';
import { onboard, verifiedUser } from '../../../fixtures/states/http.ts';
import { notFound } from '../../platform/http/errors.ts';
import type { Handler } from '../../platform/http/operations.ts';
import { raw } from '../../platform/http/reply.ts';
import type { ServiceDeps } from '../../platform/service.ts';

/**
 * The LMS's provider states for contract tests (development mode only): verified users with onboardings
 * at a given stage. Defined in fixtures/states/lms.yaml. The account comes from the Orchestrator's
 * own "a verified user" state and the onboardings from the LMS's public API, all over HTTP.
 */
export function lmsProviderStateRoutes(deps: Pick<ServiceDeps, 'config' | 'peers'>): Record<string, Handler> {
  async function setUp(definition: StateDefinition, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { intents } = definition.creates.account as { intents: string[] };
    const user = await verifiedUser(deps.peers.url('ol'), params, intents);
    const onboardings = definition.creates.onboardings as { personas: unknown; stage: unknown } | undefined;
    if (!onboardings) return { ...user };
    const personas = substitute(onboardings.personas, params) as string[];
    const onboardingId = await onboard('lms', deps.peers.url('lms'), user, personas, String(substitute(onboardings.stage, params)));
    return { ...user, onboardingId };
  }

  return {
    changeProviderState: async (call) => {
      if (!deps.config.devMode) throw notFound('Provider states exist only in development mode.');
      return raw(JSON.stringify(await applyStates(call.body, loadStateDefinitions('lms'), setUp)), 'application/json');
    },
  };
}
