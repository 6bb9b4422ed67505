import { execFile } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

// PDFs are checked with Debian's poppler-utils (pdftotext, pdftoppm), as a reader would see them.
const execute = promisify(execFile);
const run = (tool: string, args: string[]) =>
  execute(tool, args).catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'ENOENT'
      ? new Error(
          `${tool} is not installed: the PDF checks need Debian's poppler-utils (apt-get install poppler-utils)`,
        )
      : err;
  });

/** The text of a PDF, as pdftotext lays it out. */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'pdf-'));
  try {
    await fsp.writeFile(path.join(dir, 'in.pdf'), bytes);
    await run('pdftotext', ['-layout', path.join(dir, 'in.pdf'), path.join(dir, 'out.txt')]);
    return await fsp.readFile(path.join(dir, 'out.txt'), 'utf8');
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

/** Page 1 of a PDF as a PNG image (pdftoppm), with its pixel size read from the PNG header. */
export async function firstPagePng(bytes: Uint8Array): Promise<{ png: Buffer; width: number; height: number }> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'pdf-'));
  try {
    await fsp.writeFile(path.join(dir, 'in.pdf'), bytes);
    await run('pdftoppm', [
      '-png',
      '-r',
      '50',
      '-f',
      '1',
      '-l',
      '1',
      '-singlefile',
      path.join(dir, 'in.pdf'),
      path.join(dir, 'page'),
    ]);
    const png = await fsp.readFile(path.join(dir, 'page.png'));
    return { png, width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}
