import type { Dispatcher, FormData } from 'undici';

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
  return {
    async request(url: string, options: OutboundOptions = {}): Promise<Dispatcher.ResponseData<unknown>> {
      const { Agent, request } = await undici();
      dispatcher ??= new Agent(timeouts);
      return request(url, { ...options, dispatcher });
    },
    /** Closes the pool, if a call made one. */
    close: async () => dispatcher?.close(),
  };
}

/** An empty multipart form for a request body (undici's own: it does not stream the global FormData). */
export async function outboundForm(): Promise<FormData> {
  return new (await undici()).FormData();
}
