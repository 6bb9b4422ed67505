/**
 * A stand-in for the platform's gateway, just enough to exercise the scenario runner's mechanics (login,
 * refresh, operations, mailbox, retries). The end-to-end tests run the bundled scenarios on the real server.
 */
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';

export interface FakePlatform {
  url: string;
  /** Counters the tests assert on. */
  calls: { login: number; refresh: number; requests: number };
  close(): Promise<void>;
}

interface Mail {
  to: string;
  subject: string;
  text: string;
  sentAt: string;
  otp?: string;
}

const ok = (res: Response, data: unknown, status = 200) => res.status(status).json({ success: true, data });
const fail = (res: Response, status: number, code: string) =>
  res.status(status).json({ success: false, error: { code, message: code }, requestId: 'req-1' });

export async function startFakePlatform(): Promise<FakePlatform> {
  const app = express();
  app.use(express.json());
  const calls = { login: 0, refresh: 0, requests: 0 };
  let generation = 0;
  let expiredBelow = 0;
  const refreshTokens = new Set<string>();
  const mails: Mail[] = [];
  let counter = 0;

  const issue = (email: string) => {
    generation += 1;
    const refreshToken = `refresh-${email}-${generation}`;
    refreshTokens.add(refreshToken);
    return { accessToken: `access-${email}-${generation}`, refreshToken };
  };
  const bearerEmail = (req: Request) => {
    const match = /^Bearer access-(.+)-(\d+)$/.exec(req.get('authorization') ?? '');
    return match && Number(match[2]) > expiredBelow ? match[1] : undefined;
  };

  app.use((_req, _res, next) => {
    calls.requests += 1;
    next();
  });
  app.get('/v1/ol/healthz', (_req, res) => ok(res, { status: 'ok' }));
  app.get('/v1/ol/openapi.json', (_req, res) => {
    res.json({ openapi: '3.1.0', paths: { '/auth/login': { post: { operationId: 'login' } } } });
  });
  app.get('/v1/cap/openapi.json', (_req, res) => {
    res.json({
      openapi: '3.1.0',
      paths: {
        '/me': { get: { operationId: 'getMe' } },
        '/items/{id}': { get: { operationId: 'getItem' }, parameters: [] },
      },
    });
  });
  app.post('/v1/ol/auth/login', (req, res) => {
    calls.login += 1;
    if (req.body?.password !== 'right-password') return fail(res, 401, 'auth.invalid_credentials');
    return ok(res, { ...issue(req.body.email), user: { email: req.body.email } });
  });
  app.post('/v1/ol/auth/refresh', (req, res) => {
    calls.refresh += 1;
    const token = String(req.body?.refreshToken);
    if (!refreshTokens.delete(token)) return fail(res, 401, 'auth.invalid_refresh_token');
    return ok(res, issue(token.replace(/^refresh-(.+)-\d+$/, '$1')));
  });
  app.get('/v1/cap/me', (req, res) => {
    const email = bearerEmail(req);
    if (!email) return fail(res, 401, 'auth.unauthenticated');
    return ok(res, { email, persona: req.get('x-cap-persona') ?? null, centreId: req.get('x-cap-centre-id') ?? null });
  });
  app.get('/v1/cap/items/:id', (req, res) => ok(res, { id: req.params.id, query: req.query }));
  app.post('/v1/:service/echo', (req, res) => ok(res, { body: req.body, headers: req.headers }, 201));
  // Test controls, reachable from scenario steps.
  app.post('/v1/ol/test/expire-tokens', (req, res) => {
    expiredBelow = generation;
    if (req.body?.refreshToo) refreshTokens.clear();
    return ok(res, null);
  });
  app.post('/v1/ol/test/shutdown', (_req, res) => {
    ok(res, null);
    res.on('finish', () => {
      server.close();
      server.closeAllConnections();
    });
  });
  app.get('/v1/cap/counter', (_req, res) => ok(res, { count: ++counter }));
  app.post('/v1/ol/test/send-mail', (req, res) => {
    const delayMs = Number(req.body?.delayMs ?? 0);
    setTimeout(() => {
      mails.unshift({
        to: req.body.to,
        subject: 'Your code',
        text: 'Code 4321',
        sentAt: new Date().toISOString(),
        otp: '4321',
      });
    }, delayMs);
    return ok(res, null, 202);
  });
  app.get('/v1/ol/dev/mailbox', (req, res) =>
    ok(
      res,
      mails.filter((m) => m.to === req.query.to),
    ),
  );
  const events: Array<{ id: string; type: string; occurredAt: string; source: string; data: Record<string, unknown> }> =
    [];
  app.post('/v1/ol/test/publish', (req, res) => {
    setTimeout(
      () =>
        events.unshift({
          id: String(events.length + 1),
          type: req.body.type,
          occurredAt: new Date().toISOString(),
          source: 'ol',
          data: req.body.data,
        }),
      Number(req.body.delayMs ?? 0),
    );
    return ok(res, null, 202);
  });
  app.get('/v1/ol/dev/events', (req, res) =>
    ok(
      res,
      events.filter((e) => e.type === req.query.type),
    ),
  );
  app.use((_req: Request, res: Response) => fail(res, 404, 'http.not_found'));

  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
