import type { PlatformConfig } from '../../platform/config.ts';
import { createSandboxProvider } from './sandbox.ts';

export const identityOutcomes = ['verified', 'name_mismatch', 'dob_mismatch', 'not_found'] as const;
export type IdentityOutcome = (typeof identityOutcomes)[number];

/** What is asked of a provider. `number` is the raw document number: an adapter sends it and forgets it. */
export interface IdentityQuery {
  number: string;
  firstName: string;
  lastName: string;
  /** YYYY-MM-DD */
  dateOfBirth: string;
}

export interface IdentityAnswer {
  outcome: IdentityOutcome;
  /** The provider's own opaque reference for this check; never derived from the number. */
  reference: string;
}

/** An identity provider (the national register, or the sandbox) behind one interface. */
export interface IdentityProvider {
  /** Shown to callers as `provider` and stored with every check. */
  name: string;
  verify(query: IdentityQuery): Promise<IdentityAnswer>;
}

/** The adapters, by the IDENTITY_PROVIDER value that selects them. */
const adapters: Record<string, (config: PlatformConfig) => IdentityProvider> = {
  sandbox: createSandboxProvider,
};

export function createIdentityProvider(config: PlatformConfig): IdentityProvider {
  const create = adapters[config.identityProvider];
  if (!create) throw new Error(`no identity provider adapter named ${config.identityProvider}`);
  return create(config);
}
