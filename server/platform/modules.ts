import type { Service } from './service.ts';

/**
 * What one module of a service brings to it: the handlers of its operations and its background work
 * (a module subscribes to events itself, with the `events` it is given). A module's builder returns
 * this with the few functions other modules may call beside it. A piece of background work alone (a
 * listener, a timer) is a module without handlers.
 */
export type ServiceModule = Partial<Pick<Service, 'handlers'>> & Pick<Service, 'start' | 'stop' | 'settled'>;

/**
 * The modules of a service as one: their handlers merged (an operationId handled by two modules is a
 * bug, thrown at once), their background work started in the order given and stopped in reverse (what
 * started is stopped also when a later start fails), and settled together.
 */
export function composeModules(modules: ServiceModule[]): Required<ServiceModule> {
  const handlers: Service['handlers'] = {};
  for (const [index, module] of modules.entries()) {
    for (const [operationId, handler] of Object.entries(module.handlers ?? {})) {
      if (Object.hasOwn(handlers, operationId))
        throw new Error(`the operation ${operationId} has a handler in two modules (the second is module ${index})`);
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
    handlers,
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
