import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import type { PlatformConfig } from '../../platform/config.ts';
import { failedPrecondition, notFound } from '../../platform/grpc/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { Logger } from '../../platform/logger.ts';
import type { UserStatus } from '../accounts/models.ts';
import { defineIdentityModels } from './models.ts';
import type { IdentityOutcome, IdentityProvider } from './provider.ts';

export interface IdentityDeps {
  config: PlatformConfig;
  logger: Logger;
  sequelize: Sequelize;
  provider: IdentityProvider;
  /** The user's status, or null for an unknown id. */
  userStatus(userId: string): Promise<UserStatus | null>;
}

/** A check to run, already validated: `number` is the raw document number. */
export interface IdentityCheckInput {
  userId: string;
  type: string;
  number: string;
  firstName: string;
  lastName: string;
  dateOfBirth: string;
}

export interface IdentityCheckResult {
  verified: boolean;
  outcome: IdentityOutcome;
  provider: string;
  providerReference: string;
  verifiedAt: Date | null;
}

export type IdentityVerification = ReturnType<typeof createIdentityVerification>;

/**
 * The VerifyIdentity use case: asks the configured provider, records the check (with a keyed hash
 * of the number only) and answers. The raw number goes to the provider and nowhere else.
 */
export function createIdentityVerification(deps: IdentityDeps) {
  const { config, logger, provider } = deps;
  const { IdentityCheck } = defineIdentityModels(deps.sequelize);
  const numberHmac = (type: string, number: string) =>
    crypto.createHmac('sha256', config.identityHmacKey).update(`${type}:${number}`).digest('hex');

  return {
    async verify(input: IdentityCheckInput): Promise<IdentityCheckResult> {
      const status = await deps.userStatus(input.userId);
      if (!status) throw notFound('no user has this user_id');
      if (status !== 'active')
        throw failedPrecondition(`the user is ${status}; only an active user can verify an identity`);

      const answer = await provider.verify({
        number: input.number,
        firstName: input.firstName,
        lastName: input.lastName,
        dateOfBirth: input.dateOfBirth,
      });
      const verifiedAt = answer.outcome === 'verified' ? new Date() : null;
      await IdentityCheck.create({
        id: newId(),
        userId: input.userId,
        documentType: input.type,
        numberHmac: numberHmac(input.type, input.number),
        outcome: answer.outcome,
        provider: provider.name,
        providerReference: answer.reference,
        verifiedAt,
        createdAt: new Date(),
      });
      logger.info({ userId: input.userId, provider: provider.name, outcome: answer.outcome }, 'identity checked');
      return {
        verified: verifiedAt !== null,
        outcome: answer.outcome,
        provider: provider.name,
        providerReference: answer.reference,
        verifiedAt,
      };
    },
  };
}
