import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type yauzl from 'yauzl';
import { writeFileFrom } from '../../../platform/files.ts';
import { unprocessable, type ErrorDetail } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import { ManifestError, readManifest, type PackageLaunch } from './manifest.ts';

// SCORM packages: checked before a byte is written (zip-slip, declared size, manifest, launch file),
// then extracted into the package's own folder and nowhere else.

export interface PackageLimits {
  /** Largest total of the entries' declared uncompressed sizes. */
  maxUncompressedBytes: number;
  /** Most entries a package may hold. */
  maxEntries: number;
}

export interface ExtractedPackage extends PackageLaunch {
  fileCount: number;
  uncompressedBytes: number;
}

const manifestName = 'imsmanifest.xml';
const maxManifestBytes = 1024 * 1024;

const invalid = (message: string, details?: ErrorDetail[]) =>
  unprocessable('lms.scorm.invalid_package', message, details);

/**
 * Why an entry name may not be extracted, or null when it is a plain relative path: an absolute path
 * (`/x`, `C:x`, `\\host`), a `..` segment, a backslash, a control character, or an empty segment.
 */
export function unsafeEntryName(name: string): string | null {
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'holds a control character';
  if (name.includes('\\')) return 'holds a backslash';
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) return 'is an absolute path';
  const segments = name.replace(/\/$/, '').split('/');
  if (segments.includes('..')) return 'climbs out of the package with ..';
  if (segments.some((segment) => segment === '' || segment === '.')) return 'has an empty or . segment';
  return null;
}

/** yauzl and yazl load with the first package read or written (about 40 ms of start-up otherwise). */
async function openZip(file: string): Promise<yauzl.ZipFile> {
  const { default: yauzl } = await import('yauzl');
  return new Promise((resolve, reject) =>
    // Names come raw (decodeStrings: false) so that an unsafe one is reported by its name here
    // (unsafeEntryName) rather than as yauzl's bare error; yauzl still checks while extracting that
    // each entry's bytes match its declared sizes.
    yauzl.open(
      file,
      { lazyEntries: true, autoClose: false, validateEntrySizes: true, decodeStrings: false },
      (err, zip) => (err ? reject(err) : resolve(zip)),
    ),
  );
}

/** Every entry of the central directory, read without inflating anything, with its name decoded (UTF-8 when flagged, else CP437's ASCII part). */
async function listEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  const entries: yauzl.Entry[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      const raw = entry.fileName as unknown as Buffer;
      entry.fileName = raw.toString(entry.generalPurposeBitFlag & 0x800 ? 'utf8' : 'latin1');
      entries.push(entry);
      zip.readEntry();
    });
    zip.once('end', () => resolve());
    zip.once('error', reject);
    zip.readEntry();
  });
  return entries;
}

function readStream(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry, (err, stream) => (err ? reject(err) : resolve(stream))),
  );
}

async function readText(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of (await readStream(zip, entry)) as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
}

const safeDecode = (href: string) => {
  try {
    return decodeURI(href);
  } catch {
    return href;
  }
};

const isDirectory = (entry: yauzl.Entry) => entry.fileName.endsWith('/');

/**
 * Checks a SCORM package and extracts it into `destination` (which must not exist yet): first the
 * whole central directory (names, declared sizes, the manifest and its launch file), and only then
 * the files, into a staging folder beside `destination` that becomes it by one rename. A package that
 * fails any check is refused with 422 `lms.scorm.invalid_package` and leaves nothing behind.
 */
export async function extractPackage(
  zipFile: string,
  destination: string,
  limits: PackageLimits,
): Promise<ExtractedPackage> {
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(zipFile);
  } catch (err) {
    throw invalid(`The package is not a readable zip file (${(err as Error).message}).`);
  }
  const staging = path.join(path.dirname(destination), `.staging-${newId()}`);
  try {
    let entries: yauzl.Entry[];
    try {
      entries = await listEntries(zip);
    } catch (err) {
      throw invalid(`The package's zip directory cannot be read (${(err as Error).message}).`);
    }
    if (entries.length > limits.maxEntries)
      throw invalid(`The package holds ${entries.length} entries; at most ${limits.maxEntries} are accepted.`);
    const unsafe = entries.flatMap((entry) => {
      const issue = unsafeEntryName(entry.fileName);
      return issue ? [{ field: entry.fileName, issue }] : [];
    });
    if (unsafe.length)
      throw invalid(
        'The package has entries whose paths would land outside its folder; nothing was extracted.',
        unsafe,
      );
    const declared = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0);
    if (declared > limits.maxUncompressedBytes) {
      throw invalid(
        `The package declares ${declared} bytes uncompressed; at most ${limits.maxUncompressedBytes} are accepted.`,
      );
    }

    const files = entries.filter((entry) => !isDirectory(entry));
    const names = new Set(files.map((entry) => entry.fileName));
    const manifestEntry = files.find((entry) => entry.fileName === manifestName);
    if (!manifestEntry) throw invalid(`The package has no ${manifestName} at its top level.`);
    if (manifestEntry.uncompressedSize > maxManifestBytes)
      throw invalid(`The package's ${manifestName} is over ${maxManifestBytes} bytes.`);
    let launch: PackageLaunch;
    try {
      launch = readManifest(await readText(zip, manifestEntry));
    } catch (err) {
      if (err instanceof ManifestError) throw invalid(`The package's ${manifestName} cannot be used: ${err.message}.`);
      throw invalid(`The package's ${manifestName} cannot be read (${(err as Error).message}).`);
    }
    if (launch.scormVersion !== '1.2') {
      // The player provides the SCORM 1.2 API only (the LMS description asks for no other version).
      throw invalid(`The package is SCORM ${launch.scormVersion}; this LMS plays SCORM 1.2 packages.`, [
        { field: manifestName, issue: `schemaversion is SCORM ${launch.scormVersion}` },
      ]);
    }
    const launchFile = safeDecode(launch.scoHref.split(/[?#]/)[0]!);
    if (unsafeEntryName(launchFile) || !names.has(launchFile)) {
      throw invalid(`The manifest launches ${launch.scoHref}, which is not a file in the package.`, [
        { field: manifestName, issue: `launch file ${launch.scoHref} is missing` },
      ]);
    }

    await fs.mkdir(staging, { recursive: true });
    for (const entry of files) {
      const target = path.resolve(staging, entry.fileName);
      // The names were checked above; this keeps the promise even if that check were ever loosened.
      if (!target.startsWith(staging + path.sep))
        throw invalid(`The entry ${entry.fileName} would land outside the package folder.`);
      await fs.mkdir(path.dirname(target), { recursive: true });
      try {
        const source = await readStream(zip, entry);
        await writeFileFrom(target, 'wx', (sink) => pipeline(source, sink));
      } catch (err) {
        throw invalid(`The entry ${entry.fileName} cannot be extracted (${(err as Error).message}).`);
      }
    }
    await fs.rename(staging, destination);
    return { ...launch, fileCount: files.length, uncompressedBytes: declared };
  } finally {
    zip.close();
    await fs.rm(staging, { recursive: true, force: true });
  }
}

/** A zip of every file under `folder` (names relative to it, in name order, with a fixed date so the bytes are the same each time). */
export async function zipFolder(folder: string): Promise<Buffer> {
  const files = (await fs.readdir(folder, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
  const { default: yazl } = await import('yazl');
  const zip = new yazl.ZipFile();
  for (const name of files) zip.addFile(path.join(folder, name), name, { mtime: new Date('2026-01-01T00:00:00Z') });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}
