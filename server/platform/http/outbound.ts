import http from 'node:http';
import https from 'node:https';
import type { Dispatcher } from 'undici';

type Undici = typeof import('undici');
export type OutboundOptions = Omit<NonNullable<Parameters<Undici['request']>[1]>, 'dispatcher'>;

// undici is loaded with the first outgoing call: a start-up that calls nobody does not pay its 130 ms.
let loaded: Promise<Undici> | undefined;
const undici = () => (loaded ??= import('undici'));

/**
 * A client for calls this server makes to others (a peer service, a merchant's webhook URL), with a
 * connection pool of its own, made with the first call, and these timeouts.
 */
export function outboundHttp(timeouts: { connectTimeout: number; headersTimeout: number; bodyTimeout: number }) {
  let dispatcher: Dispatcher | undefined;
  // closeClientConnections closes the pool and the next call makes another; after `close`, calls fail.
  const dropPool = async () => {
    const pool = dispatcher;
    dispatcher = undefined;
    pools.delete(dropPool);
    await pool?.close();
  };
  const request = async (url: string, options: OutboundOptions = {}): Promise<Dispatcher.ResponseData<unknown>> => {
    const undiciModule = await undici();
    if (!dispatcher) {
      dispatcher = new undiciModule.Agent(timeouts);
      pools.add(dropPool);
    }
    return undiciModule.request(url, { ...options, dispatcher });
  };
  return {
    request,
    /**
     * POSTs one multipart form: each field as a text part, the file as the part named `file`. The form
     * is undici's own (undici does not stream the global FormData).
     */
    async postFile(
      url: string,
      fields: Record<string, string>,
      file: OutgoingFile,
      headers: Record<string, string> = {},
    ): Promise<Dispatcher.ResponseData<unknown>> {
      const form = new (await undici()).FormData();
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.mimeType }), file.fileName);
      return request(url, { method: 'POST', headers, body: form });
    },
    /** Closes the pool, if a call made one. */
    close: async () => {
      pools.delete(dropPool);
      await dispatcher?.close();
    },
  };
}

/** The clients of this process that have a pool open, each as the function that closes it. */
const pools = new Set<() => Promise<void>>();

/**
 * Closes the connections this process's clients keep open between calls, as a stop does while its
 * listeners close: a listener waits for its idle connections, and the services of this process are
 * clients of its own gateway (peer calls here, the bearer check's key fetch through Node's global
 * agent). A call under way finishes first; a later call opens a new connection.
 */
export async function closeClientConnections(): Promise<void> {
  for (const agent of [http.globalAgent, https.globalAgent])
    for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  await Promise.all([...pools].map((close) => close()));
}

/** A file to send in a multipart form. */
export interface OutgoingFile {
  bytes: Uint8Array;
  fileName: string;
  mimeType: string;
}
