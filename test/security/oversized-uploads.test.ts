import test from 'ava';
import { Readable } from 'node:stream';
import { FormData, request } from 'undici';
import { call, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { pngBytes } from '../helpers/files.ts';
import { signUp, type SignedUpUser } from '../helpers/users.ts';

// A client that sends more than a purpose allows, with or without announcing the length, is told why:
// 413 storage.too_large, as an answer it can read. What was seen: bytes streamed to an upload URL past
// the limit without a Content-Length ended in ECONNRESET, and the access log then read the client's
// address from the socket the refusal had closed, which ended the whole process.
let platform: TestPlatform;
let user: SignedUpUser;
test.before(async () => {
  platform = await startTestPlatform();
  user = await signUp(platform);
});
test.after.always(() => platform?.stop());

async function uploadUrl(): Promise<string> {
  const issued = await call('POST', platform.url('/v1/ol/storage/upload-url'), {
    token: user.accessToken,
    json: { fileName: 's.png', mimeType: 'image/png', purpose: 'signature' },
  });
  return issued.body.data.uploadUrl;
}

/** Four megabytes of a PNG in 64 KB chunks, streamed (no Content-Length: chunked). */
const streamed = () => {
  const bytes = pngBytes(2, 4 * 1024 * 1024);
  return Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += 64 * 1024) yield bytes.subarray(at, at + 64 * 1024);
    })(),
  );
};

test('bytes streamed to an upload URL past the purpose limit, without a length, get a readable 413 storage.too_large', async (t) => {
  const res = await request(await uploadUrl(), {
    method: 'PUT',
    body: streamed(),
    headers: { 'content-type': 'image/png' },
  });
  t.is(res.statusCode, 413);
  t.is(((await res.body.json()) as any).error.code, 'storage.too_large');
});

test('bytes sent to an upload URL with a Content-Length past the limit get a readable 413 storage.too_large', async (t) => {
  const bytes = pngBytes(2, 4 * 1024 * 1024);
  const res = await request(await uploadUrl(), {
    method: 'PUT',
    body: bytes,
    headers: { 'content-type': 'image/png' },
  });
  t.is(res.statusCode, 413);
  t.is(((await res.body.json()) as any).error.code, 'storage.too_large');
});

test('a multipart upload past the purpose limit gets a readable 413 storage.too_large', async (t) => {
  const form = new FormData();
  form.set('purpose', 'signature');
  form.set('file', new Blob([new Uint8Array(pngBytes(2, 4 * 1024 * 1024))], { type: 'image/png' }), 's.png');
  const res = await request(platform.url('/v1/ol/storage/upload'), {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${user.accessToken}` },
  });
  t.is(res.statusCode, 413);
  t.is(((await res.body.json()) as any).error.code, 'storage.too_large');
});
