/**
 * The message endpoint of Pact's message verification (development mode only, on the gateway's `/`):
 * a verifier posts `{description, providerStates}` and expects the message those states produce. The
 * states are set up through the provider's own state endpoint, and the `event` they return is the
 * message, as the bus delivers it.
 */
import type { RequestHandler } from 'express';
import { AppError } from '../http/errors.ts';
import { loadStateDefinitions, type StateService } from './provider-states.ts';
import { platformCall } from './http.ts';

interface MessageRequest {
  description?: unknown;
  providerStates?: Array<{ name?: unknown; params?: unknown }>;
}

const services: StateService[] = ['ol', 'cap', 'lms'];
const invalid = (message: string) => new AppError(400, 'dev.provider_state_invalid', message);

/** POST `/`: answers the message of the named provider states; other methods pass on. */
export function pactMessages(serviceUrl: (service: StateService) => string): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'POST' || req.path !== '/') return next();
    message(req.body as MessageRequest, serviceUrl).then((event) => res.status(200).json(event), next);
  };
}

async function message(body: MessageRequest, serviceUrl: (service: StateService) => string): Promise<unknown> {
  const states = Array.isArray(body?.providerStates) ? body.providerStates : [];
  const names = states.map((state) => String(state?.name ?? ''));
  const description = JSON.stringify(String(body?.description ?? ''));
  if (names.length === 0)
    throw invalid(
      `The message ${description} names no provider state: a message comes from a state that publishes an event.`,
    );
  // The service whose states these are, among those that publish an event.
  const service = services.find(
    (s) =>
      names.every((name) => loadStateDefinitions(s).has(name)) &&
      names.some((name) => 'event' in loadStateDefinitions(s).get(name)!.returns),
  );
  if (!service)
    throw invalid(
      `No service has provider states ${names.map((n) => JSON.stringify(n)).join(', ')} that publish an event (message ${description}).`,
    );
  let values: { event?: unknown };
  try {
    values = await platformCall(serviceUrl(service), 'POST', '/dev/provider-states', {
      body: { states: states.map((s) => ({ name: s.name, params: s.params ?? {} })), action: 'setup' },
    });
  } catch (err) {
    throw new AppError(
      500,
      'dev.provider_state_failed',
      `The message ${description} could not be produced: ${(err as Error).message}`,
    );
  }
  return values.event;
}
