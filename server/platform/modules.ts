import type { EventHandler, EventType } from './events/types.ts';
import type { Handler } from './http/operations.ts';

/** An event a module consumes: registered with the service's `events.subscribe` before it starts. */
export interface Subscription {
  type: EventType;
  /** The consumer's name (its queue), e.g. `lms.provision-user`. */
  consumer: string;
  handle: EventHandler;
}

/** What a module's face builds: its operations' handlers (by operationId) and its event subscriptions. */
export interface Module {
  handlers: Record<string, Handler>;
  subscriptions?: readonly Subscription[];
}

/**
 * A service's modules as one: their handlers merged (an operationId claimed by two modules is a bug,
 * thrown at start) and their subscriptions listed.
 */
export function composeModules(modules: readonly Module[]): { handlers: Record<string, Handler>; subscriptions: Subscription[] } {
  const handlers: Record<string, Handler> = {};
  for (const module of modules) {
    for (const [operationId, handler] of Object.entries(module.handlers)) {
      if (operationId in handlers) throw new Error(`two modules handle the operation ${operationId}`);
      handlers[operationId] = handler;
    }
  }
  return { handlers, subscriptions: modules.flatMap((module) => module.subscriptions ?? []) };
}
