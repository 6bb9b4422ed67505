import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import net from 'node:net';
import { serviceNames } from '../../server/platform/config.ts';
import { call, type TestPlatform } from './platform.ts';

export interface RawAnswer {
  status: number;
  body: any;
}

/**
 * One request written by hand on a socket, for bodies no client library sends: `head` is the request
 * line and headers (CRLF-separated, no blank line at the end), `body` the bytes that follow. With
 * `cut`, the socket is destroyed once the bytes are written, as a client that goes away mid-upload
 * does, and nothing is awaited; otherwise the answer is read until the server closes.
 */
export function rawRequest(
  baseUrl: string,
  head: string,
  body: string | Buffer,
  options: { cut?: boolean } = {},
): Promise<RawAnswer | undefined> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(`${head}\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`);
      socket.write(body, () => {
        if (options.cut) setTimeout(() => (socket.destroy(), resolve(undefined)), 5);
      });
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (err) => (options.cut ? resolve(undefined) : reject(err)));
    socket.on('close', () => {
      if (options.cut) return;
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      if (!status) return reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
      const payload = text.slice(text.indexOf('\r\n\r\n') + 4);
      let parsed: unknown;
      try {
        parsed = JSON.parse(payload);
      } catch {
        parsed = payload;
      }
      resolve({ status, body: parsed });
    });
  });
}

/**
 * Every listener of the platform answers its health check: healthz on the gateway prefix and the own
 * port of each service, and the standard gRPC health service on both gRPC listeners. Answers what
 * did not, so an assertion names it.
 */
export async function unhealthyListeners(platform: TestPlatform): Promise<string[]> {
  const failed: string[] = [];
  for (const service of serviceNames) {
    for (const base of [`${platform.urls.gateway}/v1/${service}`, `${platform.urls[service]}/v1`]) {
      const res = await call('GET', `${base}/healthz`).catch(() => undefined);
      if (res?.status !== 200) failed.push(`${base}/healthz`);
    }
  }
  const loaded = grpc.loadPackageDefinition(
    protoLoader.loadSync(healthProtoPath, { keepCase: true, enums: String }),
  ) as any;
  for (const name of ['grpc', 'grpc-lms']) {
    const client = new loaded.grpc.health.v1.Health(platform.urls[name], grpc.credentials.createInsecure());
    const status = await new Promise<string | undefined>((resolve) =>
      client.Check(
        { service: '' },
        { deadline: Date.now() + 5000 },
        (err: Error | null, response?: { status: string }) => resolve(err ? undefined : response?.status),
      ),
    );
    client.close();
    if (status !== 'SERVING') failed.push(`${name} health (${status ?? 'no answer'})`);
  }
  return failed;
}
