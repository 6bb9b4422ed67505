import test, { type ExecutionContext } from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { serviceNames } from '../../server/platform/config.ts';
import { loadApiDocument, type Operation } from '../../server/platform/http/openapi.ts';
import { samplePackage } from '../../server/lms/catalogue/scorm/sample.ts';
import { pngBytes, uploadAsset } from '../helpers/files.ts';
import { lms, lmsInstructor, lmsStaff, type LmsPerson } from '../helpers/lms.ts';
import { call, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { rawRequest, unhealthyListeners } from '../helpers/raw-http.ts';

// Attack: a request body that is cut short or malformed. One multipart upload that opened its file
// part and never closed it (no closing boundary) ended the whole process: busboy reported the end
// of the form on a file stream nobody listened to yet. Every operation that takes a body gets a
// truncated, a cut-short and a malformed one here; each is a 4xx (or no answer, when the client
// left), no temp file or asset is left behind, and every listener answers afterwards.
let platform: TestPlatform;
let author: LmsPerson;
let operations: Operation[];
let dataDir: string;
test.before(async () => {
  // A data directory of its own, so the temp folder holds only this file's uploads.
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'truncated-uploads-'));
  platform = await startTestPlatform({ dataDir });
  author = await lmsInstructor(platform, await lmsStaff(platform));
  operations = (
    await Promise.all(
      serviceNames.map(async (service) =>
        (await loadApiDocument(service)).operations.map((op) => ({ ...op, path: `/v1/${service}${op.path}` })),
      ),
    )
  ).flat();
});
test.after.always(async () => {
  await platform?.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
});

const tempFiles = () => fs.readdir(path.join(platform.config.storageDir, 'tmp')).catch(() => []);
/** The author's assets that hold bytes (not `pending`: an upload URL was issued, nothing came). */
const storedAssets = async () =>
  Number(
    (
      await sql<{ n: string }>(
        platform,
        "SELECT count(*) AS n FROM ol.storage_assets WHERE owner_user_id = $1 AND status <> 'pending'",
        [author.userId],
      )
    )[0]!.n,
  );

/** A form whose file part opens and never closes: no closing boundary. */
const openForm = (fileBytes: Buffer) =>
  Buffer.concat([
    Buffer.from('--B\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nevidence\r\n'),
    Buffer.from(
      '--B\r\nContent-Disposition: form-data; name="file"; filename="scan.png"\r\nContent-Type: image/png\r\n\r\n',
    ),
    fileBytes,
  ]);

/** Bodies that are not multipart/form-data at all, each with its content type. */
const malformedForms: Array<[string, string, Buffer]> = [
  [
    'no boundary',
    'multipart/form-data',
    Buffer.from('--B\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nx\r\n--B--\r\n'),
  ],
  [
    'a part header without its blank line',
    'multipart/form-data; boundary=B',
    Buffer.from(`--B\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n${'x'.repeat(100)}`),
  ],
  ['no boundary line anywhere', 'multipart/form-data; boundary=B', Buffer.from('just some bytes, nothing like a form')],
];

const head = (method: string, target: string, headers: Record<string, string | number>) =>
  [`${method} ${target} HTTP/1.1`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)].join('\r\n');

/**
 * How this test reaches each operation that takes a file, by operationId: its request target (made
 * fresh per request where it is single-use) and the headers that authenticate it.
 */
const uploaders: Record<string, () => Promise<{ method: string; target: string; auth: Record<string, string> }>> = {
  uploadAsset: async () => ({
    method: 'POST',
    target: '/v1/ol/storage/upload',
    auth: { Authorization: `Bearer ${author.accessToken}` },
  }),
  receiveAssetUpload: async () => {
    const issued = await call('POST', platform.url('/v1/ol/storage/upload-url'), {
      token: author.accessToken,
      json: { fileName: 'scan.png', mimeType: 'image/png', purpose: 'evidence' },
    });
    return {
      method: 'PUT',
      target: new URL(issued.body.data.uploadUrl).pathname + new URL(issued.body.data.uploadUrl).search,
      auth: {},
    };
  },
};

const takesFiles = (op: Operation) =>
  Object.keys(op.requestBody?.content ?? {}).some((type) => type !== 'application/json');

async function assertUnharmed(t: ExecutionContext) {
  // The server answers before it has removed a temp file of a form cut short, and a client that
  // left gets no answer at all: wait for the files, briefly.
  for (let i = 0; i < 50 && (await tempFiles()).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  t.deepEqual(await tempFiles(), [], 'no temp file is left behind');
  t.deepEqual(await unhealthyListeners(platform), [], 'every listener answers its health check');
}

test.serial(
  'the operations that take a file (multipart or raw bytes) are exactly the ones this test sends broken bodies to',
  (t) => {
    t.deepEqual(
      operations
        .filter(takesFiles)
        .map((op) => op.operationId)
        .sort(),
      Object.keys(uploaders).sort(),
    );
  },
);

test.serial(
  'uploadAsset: a form without its closing boundary, cut short, or malformed is 400 storage.multipart_invalid and nothing is kept',
  async (t) => {
    const before = await storedAssets();
    const { method, target, auth } = await uploaders.uploadAsset!();
    const form = openForm(pngBytes(4));
    const truncated = await rawRequest(
      platform.url('/'),
      head(method, target, {
        ...auth,
        'Content-Type': 'multipart/form-data; boundary=B',
        'Content-Length': form.length,
      }),
      form,
    );
    t.is(truncated?.status, 400);
    t.is(truncated?.body.error.code, 'storage.multipart_invalid');
    const chunked = await rawRequest(
      platform.url('/'),
      head(method, target, {
        ...auth,
        'Content-Type': 'multipart/form-data; boundary=B',
        'Transfer-Encoding': 'chunked',
      }),
      Buffer.concat([Buffer.from(`${form.length.toString(16)}\r\n`), form, Buffer.from('\r\n0\r\n\r\n')]),
    );
    t.is(chunked?.status, 400, 'the same form, chunked');
    t.is(chunked?.body.error.code, 'storage.multipart_invalid');
    await rawRequest(
      platform.url('/'),
      head(method, target, {
        ...auth,
        'Content-Type': 'multipart/form-data; boundary=B',
        'Content-Length': form.length + 100_000,
      }),
      form,
      { cut: true },
    );
    await rawRequest(
      platform.url('/'),
      head(method, target, {
        ...auth,
        'Content-Type': 'multipart/form-data; boundary=B',
        'Transfer-Encoding': 'chunked',
      }),
      Buffer.concat([Buffer.from(`${(form.length + 100).toString(16)}\r\n`), form]),
      { cut: true },
    );
    for (const [what, type, body] of malformedForms) {
      const res = await rawRequest(
        platform.url('/'),
        head(method, target, { ...auth, 'Content-Type': type, 'Content-Length': body.length }),
        body,
      );
      t.is(res?.status, 400, what);
      t.is(res?.body.error.code, 'storage.multipart_invalid', what);
    }
    await assertUnharmed(t);
    t.is(await storedAssets(), before, 'no asset was stored');
  },
);

test.serial(
  'receiveAssetUpload: bytes cut short leave the asset pending and no file; a form sent as the bytes is 415',
  async (t) => {
    const before = await storedAssets();
    const form = openForm(pngBytes(4));
    const { method, target } = await uploaders.receiveAssetUpload!();
    await rawRequest(
      platform.url('/'),
      head(method, target, { 'Content-Type': 'image/png', 'Content-Length': form.length + 100_000 }),
      form,
      { cut: true },
    );
    await rawRequest(
      platform.url('/'),
      head(method, target, { 'Content-Type': 'image/png', 'Transfer-Encoding': 'chunked' }),
      Buffer.concat([Buffer.from(`${(form.length + 100).toString(16)}\r\n`), form]),
      { cut: true },
    );
    const assetId = target.split('/').pop()!.split('?')[0];
    const [asset] = await sql<{ status: string; size_bytes: string | null }>(
      platform,
      'SELECT status, size_bytes FROM ol.storage_assets WHERE id = $1',
      [assetId],
    );
    t.deepEqual(asset, { status: 'pending', size_bytes: null });
    for (const [what, type, body] of [
      ...malformedForms,
      ['a form without its closing boundary', 'multipart/form-data; boundary=B', form] as const,
    ]) {
      const fresh = await uploaders.receiveAssetUpload!();
      const res = await rawRequest(
        platform.url('/'),
        head(fresh.method, fresh.target, { 'Content-Type': type, 'Content-Length': body.length }),
        body,
      );
      t.is(res?.status, 415, what);
      t.is(res?.body.error.code, 'storage.type_not_allowed', what);
    }
    await assertUnharmed(t);
    t.is(await storedAssets(), before, 'no asset received bytes');
  },
);

test.serial(
  'every operation that takes JSON answers a multipart form without its closing boundary with a 4xx, and survives JSON cut short',
  async (t) => {
    const before = await storedAssets();
    const form = openForm(pngBytes(4));
    const json = Buffer.from('{"title": "cut sh');
    const withBodies = operations.filter((op) => op.requestBody && !takesFiles(op));
    t.true(withBodies.length > 100, `${withBodies.length} operations take JSON`);
    for (const op of withBodies) {
      const target = op.path.replace(/\{[^}]+\}/g, '01J00000000000000000000000');
      const auth = { Authorization: `Bearer ${author.accessToken}` };
      const res = await rawRequest(
        platform.url('/'),
        head(op.method.toUpperCase(), target, {
          ...auth,
          'Content-Type': 'multipart/form-data; boundary=B',
          'Content-Length': form.length,
        }),
        form,
      );
      t.true(res!.status >= 400 && res!.status < 500, `${op.operationId}: ${res?.status}`);
      await rawRequest(
        platform.url('/'),
        head(op.method.toUpperCase(), target, {
          ...auth,
          'Content-Type': 'application/json',
          'Content-Length': json.length + 100,
        }),
        json,
        { cut: true },
      );
    }
    await assertUnharmed(t);
    t.is(await storedAssets(), before, 'no asset was stored');
  },
);

test.serial(
  'a SCORM package cut short is refused when attached (422 lms.scorm.invalid_package) and every listener still answers',
  async (t) => {
    const whole = await samplePackage();
    const courseId = (
      await lms(platform, author, 'POST', '/authoring/courses', {
        title: 'Cut short',
        price: { amountMinorUnits: '0', currency: 'NGN' },
      })
    ).body.data.id;
    const moduleId = (
      await lms(platform, author, 'POST', `/authoring/courses/${courseId}/modules`, { title: 'Basics' })
    ).body.data.id;
    for (const bytes of [whole.subarray(0, Math.floor(whole.length / 2)), whole.subarray(0, whole.length - 10)]) {
      const packageAssetId = await uploadAsset(platform, author, bytes, 'scorm_package', 'cut.zip', 'application/zip');
      const res = await lms(platform, author, 'POST', `/authoring/courses/${courseId}/modules/${moduleId}/items`, {
        type: 'scorm_package',
        title: 'Cut',
        packageAssetId,
      });
      t.is(res.status, 422, res.text);
      t.is(res.body.error.code, 'lms.scorm.invalid_package');
    }
    t.deepEqual(await unhealthyListeners(platform), []);
  },
);

test.serial(
  '1,000 truncated uploads in a row are each refused or dropped, and the platform still answers on every listener',
  async (t) => {
    const before = await storedAssets();
    const { method, target, auth } = await uploaders.uploadAsset!();
    const form = openForm(pngBytes(4));
    let refused = 0;
    for (let i = 0; i < 1000; i++) {
      if (i % 2 === 0) {
        const res = await rawRequest(
          platform.url('/'),
          head(method, target, {
            ...auth,
            'Content-Type': 'multipart/form-data; boundary=B',
            'Content-Length': form.length,
          }),
          form,
        );
        if (res?.status === 400 && res.body.error.code === 'storage.multipart_invalid') refused++;
      } else {
        await rawRequest(
          platform.url('/'),
          head(method, target, {
            ...auth,
            'Content-Type': 'multipart/form-data; boundary=B',
            'Content-Length': form.length + 100_000,
          }),
          form,
          { cut: true },
        );
      }
    }
    t.is(refused, 500, 'every truncated form that waited for its answer got 400 storage.multipart_invalid');
    await assertUnharmed(t);
    t.is(await storedAssets(), before, 'no asset was stored');
  },
);
