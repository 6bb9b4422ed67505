import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/** What a handler returns: a JSON envelope, raw content (the API reference page, its assets), or a stream (a stored file). */
export type Reply =
  | { kind: 'json'; status: number; data: unknown; meta?: Record<string, unknown>; headers?: Record<string, string> }
  | { kind: 'raw'; status: number; body: string | Buffer; contentType: string; headers?: Record<string, string> }
  | { kind: 'stream'; status: number; body: Readable; contentType: string; headers?: Record<string, string> };

export const ok = (data: unknown, meta?: Record<string, unknown>): Reply => ({ kind: 'json', status: 200, data, meta });
export const created = (data: unknown): Reply => ({ kind: 'json', status: 201, data });
export const accepted = (data: unknown): Reply => ({ kind: 'json', status: 202, data });
export const raw = (body: string | Buffer, contentType: string, headers?: Record<string, string>): Reply => ({
  kind: 'raw',
  status: 200,
  body,
  contentType,
  headers,
});

/**
 * JSON text made elsewhere (by PostgreSQL, server/platform/db/json-text.ts) as a reply's data: written
 * into the reply as it is, where building objects of a page's rows only to print them again cost a list
 * a large share of its time (bench/NOTES.md, 2026-11-28).
 */
export class JsonText {
  constructor(readonly text: string) {}

  /** The JSON array of the texts. */
  static array(texts: string[]): JsonText {
    return new JsonText(`[${texts.join(',')}]`);
  }
}

/** The success envelope of DESIGN.md section 5, as JSON text. */
export function successText(data: unknown, meta?: Record<string, unknown>): string {
  if (!(data instanceof JsonText))
    return JSON.stringify(meta ? { success: true, data, meta } : { success: true, data });
  return `{"success":true,"data":${data.text}${meta ? `,"meta":${JSON.stringify(meta)}` : ''}}`;
}

export const streamed = (body: Readable, contentType: string, headers?: Record<string, string>): Reply => ({
  kind: 'stream',
  status: 200,
  body,
  contentType,
  headers,
});

/**
 * Writes a JSON text as the whole reply: status, type, length and body in one write. Express's
 * `res.json` does the same with more steps (charset and freshness checks), on every request.
 */
export function writeJson(res: ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(res.req.method === 'HEAD' ? undefined : text);
}
