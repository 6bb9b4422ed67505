import type { ServiceName } from './config.ts';
import type { Handler, SecurityHandler } from './http/operations.ts';
import type { Service } from './service.ts';

/**
 * What one module of a service brings to it: the handlers of its operations and its background work.
 * A module's builder returns this with the few functions other modules may call beside it.
 */
export interface ServiceModule {
  /** Handlers by operationId; each operation is handled by exactly one module. */
  handlers: Record<string, Handler>;
  start?(): Promise<Record<string, string> | void>;
  stop?(): Promise<void>;
  settled?(): Promise<void>;
}

/**
 * A service made of modules: their handlers merged (an operationId handled by two modules stops the
 * start), their background work started in the order given and stopped in reverse (what started is
 * stopped also when a later start fails), and settled together.
 */
export function composeService(
  name: ServiceName,
  modules: ServiceModule[],
  options: { security?: Record<string, SecurityHandler> } = {},
): Service {
  const handlers: Record<string, Handler> = {};
  for (const [index, module] of modules.entries()) {
    for (const [operationId, handler] of Object.entries(module.handlers)) {
      if (Object.hasOwn(handlers, operationId)) throw new Error(`${name}: the operation ${operationId} has a handler in two modules (the second is module ${index})`);
      handlers[operationId] = handler;
    }
  }
  const started: ServiceModule[] = [];
  async function stop(): Promise<void> {
    const failures: unknown[] = [];
    for (const module of started.splice(0).reverse()) await module.stop?.().catch((err: unknown) => failures.push(err));
    if (failures.length) throw failures[0];
  }
  return {
    name,
    handlers,
    security: options.security,
    async start() {
      const urls: Record<string, string> = {};
      try {
        for (const module of modules) {
          Object.assign(urls, (await module.start?.()) ?? {});
          started.push(module);
        }
      } catch (err) {
        await stop().catch(() => undefined);
        throw err;
      }
      return urls;
    },
    stop,
    async settled() {
      await Promise.all(modules.map((module) => module.settled?.()));
    },
  };
}
