import { writeFile } from 'node:fs/promises';

/** Exit codes shared by every capctl command (README, "Exit codes"). */
export const exitCodes = {
  ok: 0,
  failed: 1,
  usage: 2,
  unreachable: 3,
  /** Stopped by Ctrl-C (128 + SIGINT), after the reports of what ran were written. */
  interrupted: 130,
} as const;

/** A mistake in how capctl was called or configured: printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The platform could not be reached at all (as opposed to answering with an error): exit code 3. */
export class UnreachableError extends Error {
  override name = 'UnreachableError';
}

/** Prints a value for machines (`--json`) or a line for people. */
export function print(value: unknown, asJson: boolean, human: () => string): void {
  process.stdout.write(asJson ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

/**
 * A password given on stdin (`--password-stdin`), so it is not on the command line for `ps` to show:
 * the first line of stdin, which must not be empty. `--x` and `--x-stdin` exclude each other.
 */
export async function passwordFromStdin(flag: string, alsoGiven: boolean): Promise<string> {
  if (alsoGiven) throw new UsageError(`${flag} and ${flag}-stdin exclude each other`);
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0]!;
  if (password === '') throw new UsageError(`${flag}-stdin: stdin has no password (its first line is empty)`);
  return password;
}

/** Writes a report file (JUnit, HTML) a command was asked for; one that cannot be written is a usage error. */
export async function writeReport(file: string, text: string): Promise<void> {
  try {
    await writeFile(file, text);
  } catch (err) {
    throw new UsageError(`cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
}
