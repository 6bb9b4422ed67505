import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import yazl from 'yazl';
import { AppError } from '../../server/platform/http/errors.ts';
import { extractPackage, zipFolder } from '../../server/lms/catalogue/scorm/package.ts';
import { readManifest } from '../../server/lms/catalogue/scorm/manifest.ts';
import { samplePackage, samplePackagePath } from '../../server/lms/catalogue/scorm/sample.ts';

const limits = { maxUncompressedBytes: 50 * 1024 * 1024, maxEntries: 1000 };

const workspaces: string[] = [];
test.after.always(() => Promise.all(workspaces.map((root) => fs.rm(root, { recursive: true, force: true }))));

/** A fresh folder holding `packages/`, where each test extracts; anything written beside `packages/` escaped. */
async function workspace() {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'lms-scorm-'));
  workspaces.push(root);
  await fs.mkdir(path.join(root, 'packages'));
  return { root, destination: path.join(root, 'packages', 'pkg'), zipFile: path.join(root, 'upload.zip') };
}

/** Everything under a folder, as relative paths. */
async function tree(folder: string): Promise<string[]> {
  return (await fs.readdir(folder, { recursive: true })).map((p) => p.split(path.sep).join('/')).sort();
}

async function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(files))
    zip.addBuffer(Buffer.from(text), name, { mtime: new Date('2026-01-01T00:00:00Z') });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** yazl refuses to write unsafe names, so an attacker's zip is made by renaming an entry in place (same length). */
function renameEntry(zip: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error('same length only');
  const out = Buffer.from(zip);
  let at = out.indexOf(from);
  while (at !== -1) {
    out.write(to, at, 'latin1');
    at = out.indexOf(from, at + 1);
  }
  return out;
}

/** Rewrites the declared uncompressed size of every entry (local headers and central directory). */
function declareSize(zip: Buffer, bytes: number): Buffer {
  const out = Buffer.from(zip);
  for (let at = 0; at < out.length - 4; at++) {
    const signature = out.readUInt32LE(at);
    if (signature === 0x04034b50) out.writeUInt32LE(bytes, at + 22);
    if (signature === 0x02014b50) out.writeUInt32LE(bytes, at + 24);
  }
  return out;
}

const manifest = (href: string) =>
  `<?xml version="1.0"?><manifest identifier="m"><organizations default="o"><organization identifier="o"><title>T</title>` +
  `<item identifier="i" identifierref="r"><title>Lesson</title></item></organization></organizations>` +
  `<resources><resource identifier="r" type="webcontent" adlcp:scormtype="sco" href="${href}"><file href="${href}"/></resource></resources></manifest>`;

async function refusal(t: any, zip: Buffer) {
  const { root, destination, zipFile } = await workspace();
  await fs.writeFile(zipFile, zip);
  const err = await t.throwsAsync(() => extractPackage(zipFile, destination, limits));
  t.true(err instanceof AppError);
  t.is((err as AppError).status, 422);
  t.is((err as AppError).code, 'lms.scorm.invalid_package');
  // Nothing was extracted: not in the package folder, not beside it, not above it.
  t.deepEqual(await tree(path.join(root, 'packages')), []);
  t.deepEqual(await tree(root), ['packages', 'upload.zip']);
  return err as AppError;
}

test('the bundled package is a SCORM 1.2 package whose manifest launches index.html with three pages and a quiz', async (t) => {
  const { destination, zipFile } = await workspace();
  await fs.writeFile(zipFile, await samplePackage());
  const extracted = await extractPackage(zipFile, destination, limits);
  t.is(extracted.scormVersion, '1.2');
  t.is(extracted.scoHref, 'index.html');
  t.is(extracted.title, 'Workshop safety basics');
  t.deepEqual(await tree(destination), [
    'imsmanifest.xml',
    'index.html',
    'pages',
    'pages/1-welcome.html',
    'pages/2-hazards.html',
    'pages/3-quiz.html',
    'sco.js',
    'style.css',
  ]);
  t.is(
    await fs.readFile(path.join(destination, 'sco.js'), 'utf8'),
    await fs.readFile(path.join(samplePackagePath, 'sco.js'), 'utf8'),
  );
});

test('the bundled package zips to the same bytes every time', async (t) => {
  t.deepEqual(await samplePackage(), await samplePackage());
  t.deepEqual(await zipFolder(samplePackagePath), await samplePackage());
});

test('a package with a ../ entry is refused and nothing is written outside (or inside) its folder', async (t) => {
  const zip = renameEntry(
    await zipOf({ 'imsmanifest.xml': manifest('index.html'), 'index.html': 'ok', 'zz/evil.txt': 'owned' }),
    'zz/evil.txt',
    '../evil.txt',
  );
  const err = await refusal(t, zip);
  t.deepEqual(err.details, [{ field: '../evil.txt', issue: 'climbs out of the package with ..' }]);
});

test('a package with a deeper ../ climb is refused', async (t) => {
  const zip = renameEntry(
    await zipOf({ 'imsmanifest.xml': manifest('index.html'), 'index.html': 'ok', 'pages/xx/xx/evil.txt': 'owned' }),
    'pages/xx/xx/evil.txt',
    'pages/../../evil.txt',
  );
  await refusal(t, zip);
});

test('a package with an absolute path entry is refused', async (t) => {
  const zip = renameEntry(
    await zipOf({ 'imsmanifest.xml': manifest('index.html'), 'index.html': 'ok', 'xtmp/evil.txt': 'owned' }),
    'xtmp/evil.txt',
    '/tmp/evil.txt',
  );
  const err = await refusal(t, zip);
  t.deepEqual(err.details, [{ field: '/tmp/evil.txt', issue: 'is an absolute path' }]);
});

test('a package with a backslash path entry is refused', async (t) => {
  const zip = renameEntry(
    await zipOf({ 'imsmanifest.xml': manifest('index.html'), 'index.html': 'ok', 'xx/evil.txt': 'owned' }),
    'xx/evil.txt',
    '..\\evil.txt',
  );
  await refusal(t, zip);
});

test('a package declaring 1 GB uncompressed is refused before anything is inflated', async (t) => {
  const zip = declareSize(
    await zipOf({ 'imsmanifest.xml': manifest('index.html'), 'index.html': 'ok' }),
    1024 * 1024 * 1024,
  );
  const err = await refusal(t, zip);
  t.regex(err.message, /declares 2147483648 bytes uncompressed/);
});

test('a package over the configured uncompressed limit is refused', async (t) => {
  const { destination, zipFile } = await workspace();
  await fs.writeFile(
    zipFile,
    await zipOf({ 'imsmanifest.xml': manifest('index.html'), 'index.html': 'x'.repeat(5000) }),
  );
  const err = await t.throwsAsync(() =>
    extractPackage(zipFile, destination, { maxUncompressedBytes: 4096, maxEntries: 10 }),
  );
  t.is((err as AppError).code, 'lms.scorm.invalid_package');
  await t.throwsAsync(() => fs.access(destination));
});

test('a package without imsmanifest.xml is refused', async (t) => {
  const err = await refusal(t, await zipOf({ 'index.html': 'ok' }));
  t.regex(err.message, /no imsmanifest\.xml/);
});

test('a package whose manifest launches a file it does not contain is refused', async (t) => {
  const err = await refusal(t, await zipOf({ 'imsmanifest.xml': manifest('start.html'), 'index.html': 'ok' }));
  t.deepEqual(err.details, [{ field: 'imsmanifest.xml', issue: 'launch file start.html is missing' }]);
});

test('a package whose manifest is not well-formed XML is refused', async (t) => {
  await refusal(t, await zipOf({ 'imsmanifest.xml': '<manifest><organizations></manifest>', 'index.html': 'ok' }));
});

test('a SCORM 2004 package is refused: the player plays SCORM 1.2 only', async (t) => {
  const manifest2004 = manifest('index.html').replace(
    '<organizations',
    '<metadata><schema>ADL SCORM</schema><schemaversion>2004 4th Edition</schemaversion></metadata><organizations',
  );
  const err = await refusal(t, await zipOf({ 'imsmanifest.xml': manifest2004, 'index.html': 'ok' }));
  t.deepEqual(err.details, [{ field: 'imsmanifest.xml', issue: 'schemaversion is SCORM 2004' }]);
});

test('bytes that are not a zip are refused', async (t) => {
  await refusal(t, Buffer.from('this is not a zip file'));
});

test('the manifest reader follows the default organization, nested items and xml:base', (t) => {
  const launch = readManifest(`<?xml version="1.0"?>
    <!-- comment with <tags> inside -->
    <imscp:manifest xmlns:imscp="x" identifier="m">
      <imscp:metadata><imscp:schema>ADL SCORM</imscp:schema><imscp:schemaversion>2004 4th Edition</imscp:schemaversion></imscp:metadata>
      <imscp:organizations default="second">
        <imscp:organization identifier="first"><imscp:item identifier="a" identifierref="r1"/></imscp:organization>
        <imscp:organization identifier="second"><imscp:title>Org &amp; co</imscp:title>
          <imscp:item identifier="folder"><imscp:title>Folder</imscp:title>
            <imscp:item identifier="b" identifierref="r2"><imscp:title><![CDATA[Lesson <two>]]></imscp:title></imscp:item>
          </imscp:item>
        </imscp:organization>
      </imscp:organizations>
      <imscp:resources xml:base="content/">
        <imscp:resource identifier="r1" href="one.html"/>
        <imscp:resource identifier="r2" xml:base="two/" href="start.html?x=1"/>
      </imscp:resources>
    </imscp:manifest>`);
  t.deepEqual(launch, { scormVersion: '2004', title: 'Lesson <two>', scoHref: 'content/two/start.html?x=1' });
});
