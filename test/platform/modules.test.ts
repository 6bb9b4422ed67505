import test from 'ava';
import { ok } from '../../server/platform/http/reply.ts';
import { composeModules, type ServiceModule } from '../../server/platform/modules.ts';

// composeModules: a service's modules (and its pieces of background work) as one service.

const handler = () => ok({});

/** A module that writes what happens to it into `log`, failing its start when told to. */
function recorded(name: string, log: string[], options: { fails?: boolean; url?: string } = {}): ServiceModule {
  return {
    async start() {
      log.push(`start ${name}`);
      if (options.fails) throw new Error(`${name} would not start`);
      return options.url ? { [name]: options.url } : undefined;
    },
    async stop() {
      log.push(`stop ${name}`);
    },
  };
}

test('modules start in the order given and stop in reverse; their URLs are merged', async (t) => {
  const log: string[] = [];
  const service = composeModules([
    recorded('sessions', log),
    { stop: async () => void log.push('stop mailer') },
    recorded('grpc', log, { url: 'grpc://127.0.0.1:1' }),
  ]);
  t.deepEqual(await service.start(), { grpc: 'grpc://127.0.0.1:1' });
  await service.stop();
  t.deepEqual(log, ['start sessions', 'start grpc', 'stop grpc', 'stop mailer', 'stop sessions']);
});

test('a start that fails stops, in reverse, only what started before it, and the failure is thrown', async (t) => {
  const log: string[] = [];
  const service = composeModules([
    recorded('sessions', log),
    recorded('grpc', log, { fails: true }),
    recorded('timer', log),
  ]);
  await t.throwsAsync(service.start(), { message: 'grpc would not start' });
  t.deepEqual(log, ['start sessions', 'start grpc', 'stop sessions']);
});

test("the modules' handlers are merged, and an operation handled by two modules is refused at once", (t) => {
  const service = composeModules([{ handlers: { getMe: handler } }, { handlers: { listCentres: handler } }, {}]);
  t.deepEqual(Object.keys(service.handlers).sort(), ['getMe', 'listCentres']);
  t.throws(() => composeModules([{ handlers: { getMe: handler } }, { handlers: { getMe: handler } }]), {
    message: /getMe has a handler in two modules/,
  });
});
