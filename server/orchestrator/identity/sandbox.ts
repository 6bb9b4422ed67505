import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PlatformConfig } from '../../platform/config.ts';
import type { IdentityOutcome, IdentityProvider } from './provider.ts';

/**
 * The sandbox's documented test numbers: an 11-digit number answers by its first three digits,
 * whatever the names and date of birth; any other number is unknown to the register.
 */
export const sandboxNumberClasses: ReadonlyArray<{ prefix: string; outcome: IdentityOutcome; example: string }> = [
  { prefix: '100', outcome: 'verified', example: '10000000001' },
  { prefix: '200', outcome: 'name_mismatch', example: '20000000001' },
  { prefix: '300', outcome: 'dob_mismatch', example: '30000000001' },
];

/** A stand-in for the national identity register, with the latency of a real one (IDENTITY_LATENCY_MS). */
export function createSandboxProvider(config: PlatformConfig): IdentityProvider {
  return {
    name: 'sandbox',
    async verify({ number }) {
      if (config.identityLatencyMs > 0) await sleep(config.identityLatencyMs);
      const outcome = sandboxNumberClasses.find((entry) => number.startsWith(entry.prefix))?.outcome ?? 'not_found';
      return { outcome, reference: `sbx_${crypto.randomBytes(24).toString('base64url')}` };
    },
  };
}
