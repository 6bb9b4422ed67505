import test from 'ava';
import type { ConfigInput } from '../../server/platform/config.ts';
import { call, sql, startTestPlatform, type TestPlatform } from './platform.ts';
import { pdfBytes, pngBytes } from './files.ts';
import { signUp, type SignedUpUser } from './users.ts';

/** Seconds a sensitive asset's link lives in this suite: short, so expiry can be watched. */
const sensitiveTtl = 3;

export interface UploadOptions {
  purpose?: string;
  fileName?: string;
  type?: string;
  token?: string;
  extraFile?: boolean;
}

/**
 * The storage rules, run against one backend: `backend()` gives the configuration that selects it.
 * Every storage test file calls this once, so each backend passes the very same tests.
 */
export function storageSuite(backend: () => Promise<ConfigInput>, cleanup: () => Promise<void> = async () => {}) {
  let platform: TestPlatform;
  let alice: SignedUpUser;
  let bob: SignedUpUser;
  let selected: ConfigInput;
  test.before(async () => {
    selected = await backend();
    platform = await startTestPlatform({
      ...selected,
      storageSensitiveUrlTtlSeconds: sensitiveTtl,
      storageMaxBytes: { signature: 1024 },
    });
    [alice, bob] = await Promise.all([signUp(platform), signUp(platform)]);
  });
  test.after.always(async () => {
    await platform?.stop();
    await cleanup();
  });

  const ol = (path: string) => platform.url(`/v1/ol${path}`);

  async function uploadAs(bytes: Buffer, options: UploadOptions = {}) {
    const form = new FormData();
    form.append(
      'file',
      new Blob([new Uint8Array(bytes)], { type: options.type ?? 'application/octet-stream' }),
      options.fileName ?? 'file.bin',
    );
    if (options.extraFile) form.append('file', new Blob([new Uint8Array(bytes)]), 'second.bin');
    if (options.purpose) form.append('purpose', options.purpose);
    const res = await fetch(ol('/storage/upload'), {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${options.token ?? alice.accessToken}` },
    });
    return { status: res.status, body: (await res.json()) as any };
  }

  const upload = uploadAs;
  const download = (url: string) => fetch(url);
  const assetCount = async (user: SignedUpUser) =>
    Number(
      (
        await sql<{ n: string }>(platform, 'SELECT count(*) AS n FROM ol.storage_assets WHERE owner_user_id = $1', [
          user.userId,
        ])
      )[0]!.n,
    );

  test('an uploaded file is stored as what its bytes are and served back with its type and disposition', async (t) => {
    const bytes = pngBytes(4);
    const res = await upload(bytes, { purpose: 'passport', fileName: 'me.png', type: 'image/png' });
    t.is(res.status, 201, JSON.stringify(res.body));
    const asset = res.body.data;
    t.like(asset, {
      type: 'passport',
      purpose: 'passport',
      fileName: 'me.png',
      status: 'ready',
      metadata: { size: bytes.length, mimeType: 'image/png' },
    });
    t.is(asset.provider, selected.storageBackend);
    const file = await download(asset.url);
    t.is(file.status, 200);
    t.is(file.headers.get('content-type'), 'image/png');
    t.regex(file.headers.get('content-disposition') ?? '', /^inline; filename="me\.png"/);
    t.is(file.headers.get('cache-control'), 'private, no-store');
    t.is(file.headers.get('x-content-type-options'), 'nosniff');
    t.deepEqual(Buffer.from(await file.arrayBuffer()), bytes);
  });

  test("another user's asset cannot be resolved, confirmed or deleted: it answers like a missing one", async (t) => {
    const { body } = await upload(pngBytes(2), { purpose: 'logo', type: 'image/png' });
    const assetId = body.data.assetId;
    const resolved = await call('POST', ol('/storage/resolve'), {
      token: bob.accessToken,
      json: { assetIds: [assetId] },
    });
    t.is(resolved.status, 200);
    t.deepEqual(resolved.body.data, []);
    const confirmed = await call('POST', ol('/storage/confirm'), { token: bob.accessToken, json: { assetId } });
    t.is(confirmed.status, 404);
    t.is(confirmed.body.error.code, 'http.not_found');
    const deleted = await call('DELETE', ol(`/storage/${assetId}`), { token: bob.accessToken });
    t.is(deleted.status, 404);
    t.is(deleted.body.error.code, 'http.not_found');
    const own = await call('POST', ol('/storage/resolve'), {
      token: alice.accessToken,
      json: { assetIds: [assetId, bob.userId] },
    });
    t.deepEqual(
      own.body.data.map((a: any) => a.assetId),
      [assetId],
    );
    t.is((await download(own.body.data[0].url)).status, 200);
  });

  test('the service key resolves any user asset and opens no other storage operation (but uploads naming an owner); a wrong key is refused', async (t) => {
    const { body } = await upload(pngBytes(2), { purpose: 'avatar', type: 'image/png' });
    const asService = await call('POST', ol('/storage/resolve'), {
      headers: { 'x-platform-service-key': platform.config.serviceApiKey },
      json: { assetIds: [body.data.assetId] },
    });
    t.is(asService.status, 200);
    t.is(asService.body.data[0].assetId, body.data.assetId);
    const wrong = await call('POST', ol('/storage/resolve'), {
      headers: { 'x-platform-service-key': 'nope' },
      json: { assetIds: [body.data.assetId] },
    });
    t.is(wrong.status, 401);
    t.is(wrong.body.error.code, 'auth.unauthenticated');
    const key = { 'x-platform-service-key': platform.config.serviceApiKey };
    t.is((await call('DELETE', ol(`/storage/${body.data.assetId}`), { headers: key })).status, 401);
    t.is(
      (
        await call('POST', ol('/storage/upload-url'), {
          headers: key,
          json: { fileName: 'a.png', mimeType: 'image/png' },
        })
      ).status,
      401,
    );
  });

  test('with the service key an upload names its owner (ownerUserId), who resolves it as their own; without an owner, or an owner with a bearer, is 422', async (t) => {
    const post = (fields: Record<string, string>, headers: Record<string, string>) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(pdfBytes())], { type: 'application/pdf' }), 'certificate.pdf');
      for (const [name, value] of Object.entries(fields)) form.append(name, value);
      return fetch(ol('/storage/upload'), { method: 'POST', body: form, headers }).then(async (res) => ({
        status: res.status,
        body: (await res.json()) as any,
      }));
    };
    const key = { 'x-platform-service-key': platform.config.serviceApiKey };
    const stored = await post({ purpose: 'certificate', ownerUserId: bob.userId }, key);
    t.is(stored.status, 201, JSON.stringify(stored.body));
    const mine = await call('POST', ol('/storage/resolve'), {
      token: bob.accessToken,
      json: { assetIds: [stored.body.data.assetId] },
    });
    t.is(mine.body.data.length, 1, 'the owner resolves it like their own upload');
    const noOwner = await post({ purpose: 'certificate' }, key);
    t.is(noOwner.status, 422);
    t.is(noOwner.body.error.details[0].field, 'ownerUserId');
    const userNamingOwner = await post(
      { purpose: 'certificate', ownerUserId: bob.userId },
      { authorization: `Bearer ${alice.accessToken}` },
    );
    t.is(userNamingOwner.status, 422);
    t.is(
      (await post({ purpose: 'certificate', ownerUserId: bob.userId }, { 'x-platform-service-key': 'nope' })).status,
      401,
    );
  });

  test('a signed link stops working once it expires, and a tampered one never works', async (t) => {
    const { body } = await upload(pngBytes(2), { purpose: 'signature', type: 'image/png' });
    const url = new URL(body.data.url);
    const tampered = new URL(url);
    tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    const refused = await download(tampered.toString());
    t.is(refused.status, 403);
    t.is(((await refused.json()) as any).error.code, 'storage.url_invalid');
    await new Promise((resolve) => setTimeout(resolve, (sensitiveTtl + 0.5) * 1000));
    const expired = await download(url.toString());
    t.is(expired.status, 403);
    t.is(((await expired.json()) as any).error.code, 'storage.url_invalid');
  });

  test('a PNG named .pdf and sent as application/pdf is stored as PNG, or refused where the purpose does not take PNG', async (t) => {
    const disguised = { fileName: 'scan.pdf', type: 'application/pdf' };
    const stored = await upload(pngBytes(2), { ...disguised, purpose: 'certificate' });
    t.is(stored.status, 201);
    t.is(stored.body.data.metadata.mimeType, 'image/png');
    t.is((await download(stored.body.data.url)).headers.get('content-type'), 'image/png');
    const before = await assetCount(alice);
    const refused = await upload(pngBytes(2), { ...disguised, purpose: 'scorm_package' });
    t.is(refused.status, 415);
    t.is(refused.body.error.code, 'storage.type_not_allowed');
    t.is(await assetCount(alice), before);
    const pdf = await upload(pdfBytes(), { purpose: 'certificate', fileName: 'cert.pdf' });
    t.is(pdf.body.data.metadata.mimeType, 'application/pdf');
  });

  test('a file over its purpose size limit is refused with 413 and nothing is stored', async (t) => {
    const carol = await signUp(platform);
    const res = await upload(pngBytes(2, 2048), { purpose: 'signature', token: carol.accessToken });
    t.is(res.status, 413);
    t.is(res.body.error.code, 'storage.too_large');
    t.is(await assetCount(carol), 0);
    t.is((await upload(pngBytes(2), { purpose: 'signature', token: carol.accessToken })).status, 201);

    const issued = await call('POST', ol('/storage/upload-url'), {
      token: carol.accessToken,
      json: { fileName: 's.png', mimeType: 'image/png', purpose: 'signature' },
    });
    const put = await call('PUT', issued.body.data.uploadUrl, {
      body: pngBytes(2, 4096).toString('latin1'),
      headers: { 'content-type': 'image/png' },
    });
    t.is(put.status, 413);
    t.is(put.body.error.code, 'storage.too_large');
  });

  test('an upload URL takes the bytes, confirm makes the asset ready, and only then does it resolve', async (t) => {
    const issued = await call('POST', ol('/storage/upload-url'), {
      token: alice.accessToken,
      json: { fileName: 'cert.pdf', mimeType: 'application/pdf', purpose: 'certificate' },
    });
    t.is(issued.status, 201);
    const { assetId, uploadUrl } = issued.body.data;
    const early = await call('POST', ol('/storage/confirm'), { token: alice.accessToken, json: { assetId } });
    t.is(early.status, 409);
    t.is(early.body.error.code, 'storage.not_uploaded');
    t.deepEqual(
      (await call('POST', ol('/storage/resolve'), { token: alice.accessToken, json: { assetIds: [assetId] } })).body
        .data,
      [],
    );

    const forged = new URL(uploadUrl);
    forged.searchParams.set('signature', 'x'.repeat(43));
    t.is((await fetch(forged, { method: 'PUT', body: new Uint8Array(pdfBytes()) })).status, 403);

    const put = await fetch(uploadUrl, {
      method: 'PUT',
      body: new Uint8Array(pdfBytes()),
      headers: { 'content-type': 'application/pdf' },
    });
    t.is(put.status, 200);
    t.like(((await put.json()) as any).data, { assetId, status: 'uploaded', mimeType: 'application/pdf' });
    const confirmed = await call('POST', ol('/storage/confirm'), { token: alice.accessToken, json: { assetId } });
    t.is(confirmed.status, 200);
    t.like(confirmed.body.data, {
      assetId,
      status: 'ready',
      fileName: 'cert.pdf',
      metadata: { mimeType: 'application/pdf' },
    });
    const file = await download(confirmed.body.data.url);
    t.deepEqual(Buffer.from(await file.arrayBuffer()), pdfBytes());
    t.is((await fetch(uploadUrl, { method: 'PUT', body: new Uint8Array(pdfBytes()) })).status, 409);
  });

  test('a deleted asset no longer resolves and its link stops working', async (t) => {
    const { body } = await upload(pngBytes(2), { purpose: 'logo' });
    const deleted = await call('DELETE', ol(`/storage/${body.data.assetId}`), { token: alice.accessToken });
    t.is(deleted.status, 200);
    t.deepEqual(deleted.body.data, { assetId: body.data.assetId, deleted: true });
    t.is((await download(body.data.url)).status, 404);
    t.deepEqual(
      (
        await call('POST', ol('/storage/resolve'), {
          token: alice.accessToken,
          json: { assetIds: [body.data.assetId] },
        })
      ).body.data,
      [],
    );
  });

  test('bad uploads get a clear 4xx and store nothing', async (t) => {
    const dave = await signUp(platform);
    const upload = (bytes: Buffer, options: UploadOptions = {}) =>
      uploadAs(bytes, { token: dave.accessToken, ...options });
    const noFile = new FormData();
    noFile.append('purpose', 'passport');
    const missing = await fetch(ol('/storage/upload'), {
      method: 'POST',
      body: noFile,
      headers: { authorization: `Bearer ${dave.accessToken}` },
    });
    t.is(missing.status, 422);
    t.is(((await missing.json()) as any).error.code, 'storage.file_missing');

    const badPurpose = await upload(pngBytes(2), { purpose: 'selfie' });
    t.is(badPurpose.status, 422);
    t.is(badPurpose.body.error.details[0].field, 'purpose');

    const two = await upload(pngBytes(2), { extraFile: true });
    t.is(two.status, 422);
    t.is(two.body.error.code, 'storage.too_many_files');

    const empty = await upload(Buffer.alloc(0));
    t.is(empty.status, 422);
    t.is(empty.body.error.code, 'storage.file_empty');

    const json = await call('POST', ol('/storage/upload'), { token: dave.accessToken, json: { file: 'x' } });
    t.is(json.status, 415);
    const garbage = await call('POST', ol('/storage/upload'), {
      token: dave.accessToken,
      body: 'not multipart',
      headers: { 'content-type': 'multipart/form-data; boundary=zzz' },
    });
    t.true([400, 422].includes(garbage.status), garbage.text);

    const anonymous = await call('POST', ol('/storage/upload-url'), {
      json: { fileName: 'a.png', mimeType: 'image/png' },
    });
    t.is(anonymous.status, 401);
    t.is(await assetCount(dave), 0);
  });
}
