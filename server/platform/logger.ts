import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Paths that may hold secrets anywhere in a logged object. Request bodies are never logged whole,
 * so this is the second line of defence, not the first.
 */
const redactPaths = [
  'password', 'newPassword', 'currentPassword', 'otp', 'token', 'accessToken', 'refreshToken', 'idToken',
  'identificationNumber', 'identification_number', 'authorization', 'headers.authorization',
  '*.password', '*.otp', '*.accessToken', '*.refreshToken', '*.idToken', '*.identificationNumber',
  'req.headers.authorization', 'req.headers["x-platform-service-key"]',
];

/** The process logger: JSON lines on stderr, so stdout stays free for capctl's own output. */
export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: redactPaths, censor: '[redacted]' }, base: { pid: process.pid } }, pino.destination(2));
}
