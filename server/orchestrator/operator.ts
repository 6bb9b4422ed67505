// The Orchestrator's operator face: the only file of the Orchestrator that capctl imports. What an
// operator does to the Orchestrator directly, not through its API: rotating and listing the token
// signing keys. capctl imports it while it builds its commands, so it stays light: the work is loaded
// when it is done.
import type { Sequelize } from 'sequelize';
import type { PlatformConfig } from '../platform/config.ts';
import type { SigningKeySummary } from './tokens/keys.ts';

export { keyReloadSeconds } from './tokens/timing.ts';
export type { SigningKeySummary };

/** Makes a new key the signing key; the previous one is retired but stays published until its tokens expire. */
export async function rotateSigningKey(sequelize: Sequelize): Promise<{ kid: string; retired: string[] }> {
  return (await import('./tokens/keys.ts')).rotateSigningKey(sequelize);
}

/** Every signing key, newest first, with whether a server with this configuration publishes it. */
export async function listSigningKeys(sequelize: Sequelize, config: PlatformConfig): Promise<SigningKeySummary[]> {
  return (await import('./tokens/keys.ts')).listSigningKeys(sequelize, config);
}
