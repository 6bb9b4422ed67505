/** multipart/form-data bodies of one file, the way the web client uploads to the Orchestrator. */
import { createHash } from 'node:crypto';
import { RawBody } from './session.ts';

/**
 * One file in the part `file` (after the text fields, as browsers order a FormData). The file part's
 * content type says nothing the server relies on: the Orchestrator sniffs the bytes. Text fields say
 * `text/plain` (the default a browser leaves out), because Pact's multipart comparison needs it written.
 *
 * The boundary is drawn from a hash of what the body holds, so the same upload is the same bytes every
 * time: a Pact interaction can pin it (Pact compares a multipart body's boundary as written).
 */
export function multipartBody(fileName: string, bytes: Buffer, fields: Record<string, string> = {}): RawBody {
  const digest = createHash('sha256')
    .update(JSON.stringify([fileName, fields]))
    .update(bytes)
    .digest('hex');
  let boundary = `capctl-${digest.slice(0, 32)}`;
  // A boundary must not occur in the content; for a hash of that content this is a formality.
  for (let n = 0; bytes.includes(boundary); n++) boundary = `capctl-${digest.slice(0, 32)}-${n}`;
  const quoted = (value: string) => value.replace(/["\r\n]/g, '_');
  const parts: Buffer[] = Object.entries(fields).map(([name, value]) =>
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\nContent-Type: text/plain\r\n\r\n${value}\r\n`,
    ),
  );
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(fileName)}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return new RawBody(`multipart/form-data; boundary=${boundary}`, Buffer.concat(parts));
}
