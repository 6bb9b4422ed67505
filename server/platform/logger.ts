import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Paths that may hold secrets anywhere in a logged object. Request bodies are never logged whole,
 * so this is the second line of defence, not the first.
 */
const redactPaths = [
  'password',
  'newPassword',
  'currentPassword',
  'otp',
  'token',
  'accessToken',
  'refreshToken',
  'idToken',
  'identificationNumber',
  'identification_number',
  'authorization',
  'headers.authorization',
  '*.password',
  '*.otp',
  '*.accessToken',
  '*.refreshToken',
  '*.idToken',
  '*.identificationNumber',
  'req.headers.authorization',
  'req.headers["x-platform-service-key"]',
];

/**
 * The process logger: JSON lines on stderr, so stdout stays free for capctl's own output. Lines are
 * buffered and written at least every 200 ms and at exit: a write per line put a system call on
 * every request's path (the access log).
 */
export function createLogger(level: string): Logger {
  const destination = pino.destination({ dest: 2, minLength: 4096, sync: false });
  // Once nobody reads stderr (`capctl ... 2>&1 | head`), its lines have nowhere to go: they are dropped
  // rather than ending the process (the command notices the closed pipe on its own output).
  destination.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
  const lines = gathered(destination);
  setInterval(() => lines.flush(), 200).unref();
  process.once('exit', () => {
    try {
      lines.flushSync();
    } catch {
      // nothing more can be done at exit
    }
  });
  return pino({ level, redact: { paths: redactPaths, censor: '[redacted]' }, base: { pid: process.pid } }, lines);
}

/**
 * Lines gathered and handed to the destination 4 KiB at a time. sonic-boom measures the byte length
 * of everything it holds on each write, which at a line per request cost microseconds a line.
 */
function gathered(destination: ReturnType<typeof pino.destination>) {
  let lines: string[] = [];
  let size = 0;
  const hand = () => {
    if (lines.length === 0) return;
    destination.write(lines.join(''));
    lines = [];
    size = 0;
  };
  return {
    write(line: string): void {
      lines.push(line);
      size += line.length;
      if (size >= 4096) hand();
    },
    flush(done?: (err?: Error) => void): void {
      hand();
      destination.flush(done);
    },
    flushSync(): void {
      hand();
      destination.flushSync();
    },
  };
}
