// No imports: the CLI reads this without loading the server.

/**
 * SQLSTATEs that say the server cannot be used right now rather than that a statement is wrong:
 * class 08 (connection exception), 57P01-57P03 (shut down by an administrator, crashed, starting up
 * or shutting down) and 53300 (too many connections).
 */
const lostStates = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;
const lostSocketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** node-postgres says these in words only (its errors for a connection that ended carry no code). */
const lostMessages =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect)/;
/** Sequelize's names for a connection it could not open. */
const lostSequelizeErrors = new Set([
  'SequelizeConnectionError',
  'SequelizeConnectionRefusedError',
  'SequelizeHostNotFoundError',
  'SequelizeHostNotReachableError',
  'SequelizeConnectionTimedOutError',
]);

/**
 * True when an error says the database cannot be reached (it stopped, restarted, ended our
 * connection, or refuses connections), as opposed to a statement's own failure. Looks through the
 * causes Sequelize and node-postgres wrap around the original.
 */
export function isConnectionFailure(err: unknown): boolean {
  let current = err;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const { name, code, message } = current as { name?: unknown; code?: unknown; message?: unknown };
    if (typeof code === 'string' && (lostStates.test(code) || lostSocketCodes.has(code))) return true;
    if (typeof name === 'string' && lostSequelizeErrors.has(name)) return true;
    if (typeof message === 'string' && lostMessages.test(message)) return true;
    const inner = current as { parent?: unknown; original?: unknown; cause?: unknown; errors?: unknown[] };
    current = inner.parent ?? inner.original ?? inner.cause ?? inner.errors?.[0];
  }
  return false;
}
