import { createServer, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { UnreachableError } from '../../cli/output.ts';
import { createDispatcher, send } from '../../cli/scenarios/http.ts';

/**
 * A server that answers the first request of its first connection, keeps that connection open,
 * and closes it as soon as a second request arrives on it: what a kept-alive connection that timed
 * out on the server looks like to the client. Later connections are answered normally.
 */
async function closingServer() {
  const seen: string[] = [];
  let connections = 0;
  const server = createServer((socket: Socket) => {
    const connection = ++connections;
    let requests = 0;
    socket.on('data', (chunk) => {
      const heads = chunk.toString('latin1').match(/^[A-Z]+ \/\S*/gm) ?? [];
      for (const head of heads) {
        requests += 1;
        if (connection === 1 && requests === 2) {
          socket.resetAndDestroy();
          return;
        }
        seen.push(`${connection} ${head}`);
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{"ok":true}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

test('a GET whose kept-alive connection the server closed is sent once more on a new connection', async (t) => {
  const server = await closingServer();
  const dispatcher = createDispatcher();
  try {
    await send({ method: 'GET', url: `${server.url}/first`, headers: {} }, dispatcher);
    await sleep(50); // the connection goes back to the pool (undici opens a new one if asked at once)
    const res = await send({ method: 'GET', url: `${server.url}/second`, headers: {} }, dispatcher);
    t.is(res.status, 200);
    t.deepEqual(res.body, { ok: true });
    t.deepEqual(server.seen, ['1 GET /first', '2 GET /second']);
  } finally {
    await dispatcher.close();
    await server.close();
  }
});

test('a POST whose connection was closed under it is not sent again: the platform is reported unreachable', async (t) => {
  const server = await closingServer();
  const dispatcher = createDispatcher();
  try {
    await send({ method: 'GET', url: `${server.url}/first`, headers: {} }, dispatcher);
    await sleep(50); // the connection goes back to the pool (undici opens a new one if asked at once)
    const error = await t.throwsAsync(
      send(
        {
          method: 'POST',
          url: `${server.url}/pay`,
          headers: { 'content-type': 'application/json' },
          body: { amount: 1 },
        },
        dispatcher,
      ),
    );
    t.true(error instanceof UnreachableError, String(error));
    t.deepEqual(server.seen, ['1 GET /first']);
  } finally {
    await dispatcher.close();
    await server.close();
  }
});
