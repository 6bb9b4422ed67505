import type { Transaction } from 'sequelize';
import {
  upstreamFailure,
  type IdentityClient,
  type ProvisionAccountResponse,
} from '../../../contracts/orchestrator-client.ts';
import type { UserService } from '../service.ts';

/** Someone an organisation (a centre, an awarding body) takes on, as its form gives them. */
export interface NewMember {
  email: string;
  name: string;
  role: string;
}

/**
 * The account side of taking someone on, inside the caller's transaction: the Orchestrator's
 * ProvisionAccount (get or create by email; a new account is mailed its password, an existing one an
 * invitation) and the CapUser. `letIn` says the membership may be active at once: only for an account
 * this call created whose first CAP call already came (they signed in with the mailed password at
 * once); the row lock orders this against that first call. `invited`: the person already had an
 * account, so the membership waits for them to accept it.
 */
export function createMemberProvisioning(users: UserService, orchestrator: IdentityClient) {
  const { CapUser } = users.models;
  return async function provisionMember(
    transaction: Transaction,
    person: NewMember,
    organisation: { name: string; correlationId: string },
  ): Promise<{ userId: string; email: string; letIn: boolean; invited: boolean }> {
    const email = person.email.trim().toLowerCase();
    let account: ProvisionAccountResponse;
    try {
      account = await orchestrator.provisionAccount({
        email,
        intents: ['cap'],
        correlation_id: organisation.correlationId,
        display_name: person.name.trim(),
        centre_name: organisation.name,
        role: person.role,
      });
    } catch (err) {
      upstreamFailure(
        err,
        { unavailable: 'accounts.unavailable', failed: 'accounts.upstream_error' },
        'Creating the account',
      );
    }
    await users.provision({ userId: account.user_id, email }, transaction);
    const user = (await CapUser.findByPk(account.user_id, { transaction, lock: transaction.LOCK.UPDATE }))!;
    return { userId: user.userId, email, letIn: account.is_new && user.firstSeenAt !== null, invited: !account.is_new };
  };
}

export type ProvisionMember = ReturnType<typeof createMemberProvisioning>;
