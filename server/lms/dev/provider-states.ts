import { applyStates, loadDrafts, loadStateDefinitions, substitute, type StateDefinition } from '../../../fixtures/states/definitions.ts';
import { platformCall } from '../../../fixtures/states/http.ts';
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
    const user = await platformCall(deps.peers.url('ol'), 'POST', '/dev/provider-states', {
      body: { state: 'a verified user', params: { email: params.email, password: params.password, intents } },
    });
    const values: Record<string, unknown> = { ...user };
    const onboardings = definition.creates.onboardings as { personas: unknown; stage: unknown } | undefined;
    if (!onboardings) return values;
    const lms = (method: 'POST' | 'PATCH', path: string, body?: unknown) =>
      platformCall(deps.peers.url('lms'), method, path, { body, token: user.accessToken });
    const stage = String(substitute(onboardings.stage, params));
    for (const persona of substitute(onboardings.personas, params) as string[]) {
      values.onboardingId = (await lms('POST', '/onboarding/start', { persona })).data.onboardingId;
      if (stage === 'saved' || stage === 'submitted') await lms('PATCH', `/onboarding/${persona}/save`, loadDrafts('lms')[persona]);
      if (stage === 'submitted') await lms('POST', `/onboarding/${persona}/submit`);
    }
    return values;
  }

  return {
    changeProviderState: async (call) => {
      if (!deps.config.devMode) throw notFound('Provider states exist only in development mode.');
      return raw(JSON.stringify(await applyStates(call.body, loadStateDefinitions('lms'), setUp)), 'application/json');
    },
  };
}
