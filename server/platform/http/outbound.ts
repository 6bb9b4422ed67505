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
  const request = async (url: string, options: OutboundOptions = {}): Promise<Dispatcher.ResponseData<unknown>> => {
    const undiciModule = await undici();
    dispatcher ??= new undiciModule.Agent(timeouts);
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
    close: async () => dispatcher?.close(),
  };
}

/** A file to send in a multipart form. */
export interface OutgoingFile {
  bytes: Uint8Array;
  fileName: string;
  mimeType: string;
}
