import test from 'ava';
import fs from 'node:fs/promises';
import path from 'node:path';
import yazl from 'yazl';
import { uploadAsset } from '../helpers/files.ts';
import { lms, lmsInstructor, lmsStaff, type LmsPerson } from '../helpers/lms.ts';
import { uploadSamplePackage } from '../helpers/lms-learning.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// A SCORM package is checked when an author attaches it to an item, not when a learner first
// launches it: the authoring API refuses an unusable one with 422 lms.scorm.invalid_package.
let platform: TestPlatform;
let instructor: LmsPerson;
let moduleUrl: string;
let courseId: string;

test.before(async () => {
  platform = await startTestPlatform();
  instructor = await lmsInstructor(platform, await lmsStaff(platform));
  courseId = (
    await lms(platform, instructor, 'POST', '/authoring/courses', {
      title: 'Workshop safety',
      price: { amountMinorUnits: '0', currency: 'NGN' },
    })
  ).body.data.id;
  const moduleId = (
    await lms(platform, instructor, 'POST', `/authoring/courses/${courseId}/modules`, { title: 'Basics' })
  ).body.data.id;
  moduleUrl = `/authoring/courses/${courseId}/modules/${moduleId}/items`;
});
test.after.always(() => platform?.stop());

const packagesRoot = () => path.join(platform.config.dataDir, 'lms', 'scorm');

async function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, text] of Object.entries(files)) zip.addBuffer(Buffer.from(text), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

test('attaching the bundled package to a SCORM item extracts it and sets the launch file from its manifest', async (t) => {
  const packageAssetId = await uploadSamplePackage(platform, instructor);
  const res = await lms(platform, instructor, 'POST', moduleUrl, {
    type: 'scorm_package',
    title: 'Workshop safety basics',
    packageAssetId,
  });
  t.is(res.status, 201, res.text);
  t.like(res.body.data, { type: 'scorm_package', packageAssetId, scoHref: 'index.html' });
  await t.notThrowsAsync(fs.access(path.join(packagesRoot(), packageAssetId, 'pages', '3-quiz.html')));
});

// Serial: it compares the whole packages folder before and after, so no other attach may run meanwhile.
test.serial(
  'a package with a ../ entry is refused on attach with lms.scorm.invalid_package and nothing is extracted anywhere',
  async (t) => {
    const good = await zipOf({
      'imsmanifest.xml': '<manifest><resources><resource identifier="r" href="index.html"/></resources></manifest>',
      'index.html': 'ok',
      'zz/evil.txt': 'owned',
    });
    const evil = Buffer.from(good.toString('latin1').replaceAll('zz/evil.txt', '../evil.txt'), 'latin1');
    const packageAssetId = await uploadAsset(
      platform,
      instructor,
      evil,
      'scorm_package',
      'evil.zip',
      'application/zip',
    );
    const before = await fs.readdir(packagesRoot()).catch(() => []);
    const res = await lms(platform, instructor, 'POST', moduleUrl, {
      type: 'scorm_package',
      title: 'Evil',
      packageAssetId,
    });
    t.is(res.status, 422);
    t.is(res.body.error.code, 'lms.scorm.invalid_package');
    t.deepEqual(res.body.error.details, [{ field: '../evil.txt', issue: 'climbs out of the package with ..' }]);
    t.deepEqual(await fs.readdir(packagesRoot()).catch(() => []), before);
    await t.throwsAsync(fs.access(path.join(packagesRoot(), '..', 'evil.txt')));
    const outline = await lms(platform, instructor, 'GET', `/authoring/courses/${courseId}`);
    t.false(JSON.stringify(outline.body.data).includes('"Evil"'), 'the item was not created');
  },
);

test('a zip without a manifest is refused on attach', async (t) => {
  const packageAssetId = await uploadAsset(
    platform,
    instructor,
    await zipOf({ 'index.html': 'ok' }),
    'scorm_package',
    'bare.zip',
    'application/zip',
  );
  const res = await lms(platform, instructor, 'POST', moduleUrl, {
    type: 'scorm_package',
    title: 'Bare',
    packageAssetId,
  });
  t.is(res.status, 422);
  t.is(res.body.error.code, 'lms.scorm.invalid_package');
});

test("someone else's upload cannot be attached as a package", async (t) => {
  const other = await lmsInstructor(platform, await lmsStaff(platform));
  const packageAssetId = await uploadSamplePackage(platform, other);
  const res = await lms(platform, instructor, 'POST', moduleUrl, {
    type: 'scorm_package',
    title: 'Borrowed',
    packageAssetId,
  });
  t.is(res.status, 422);
  t.is(res.body.error.code, 'lms.scorm.invalid_package');
  t.deepEqual(res.body.error.details, [{ field: 'packageAssetId', issue: 'is not a confirmed asset of yours' }]);
});
