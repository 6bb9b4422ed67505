import fs from 'node:fs';

/**
 * Copies into a new file through `copy` (a pipeline ending in the given write stream), settled only
 * once the file is closed. `pipeline` itself rejects at the first error, which may come before the
 * file is even opened: a file removed then would appear afterwards and stay behind. `copy` is called
 * at once, so the streams it joins have their error handlers before anything can fail.
 */
export async function writeFileFrom(
  file: string,
  flags: 'w' | 'wx',
  copy: (sink: fs.WriteStream) => Promise<void>,
): Promise<void> {
  const sink = fs.createWriteStream(file, { flags });
  const closed = new Promise<void>((resolve) => sink.once('close', resolve));
  try {
    await copy(sink);
  } catch (err) {
    sink.destroy();
    await closed;
    throw err;
  }
  await closed;
}
