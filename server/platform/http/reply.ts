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

/** The success envelope of DESIGN.md section 5. */
export function successBody(data: unknown, meta?: Record<string, unknown>) {
  return meta ? { success: true, data, meta } : { success: true, data };
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
