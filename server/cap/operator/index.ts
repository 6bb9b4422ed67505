// CAP's operator face: the only file of CAP that capctl imports. What an operator does to CAP
// directly, not through its API: making the first platform admin (no API grants a platform role).
// Beside it, provider-states.ts: the development-mode states CAP's own index serves.
//
// capctl imports this file while it builds its commands, so it stays light: the work is loaded when it
// is done. The one exception to the module face rule is here for that reason: the platform role table
// comes from `people/platform-roles/roles.ts`, a file of data with no imports, instead of the people
// module's face, which loads Sequelize and the whole module.
import type { ProvisionAccountResponse } from '../../contracts/orchestrator-client.ts';
import type { PlatformRole } from '../people/index.ts';

export { isPlatformRole, platformRoles, type PlatformRole } from '../people/platform-roles/roles.ts';
export type { ProvisionAccountResponse };

/** CAP's schema in a running platform's database, for an operator command; `close()` it when done. */
export async function openCapSchema(databaseUrl: string, poolMax = 1) {
  const [{ createSequelize }, people] = await Promise.all([
    import('../../platform/db/database.ts'),
    import('../people/index.ts'),
  ]);
  const sequelize = createSequelize(databaseUrl, 'cap', poolMax);
  return {
    /** Whether CAP's migrations have made its platform roles yet (a platform started on this database once). */
    async migrated(): Promise<boolean> {
      const [[found]] = (await sequelize.query(`SELECT to_regclass('cap.platform_role_grants') AS grants`)) as [
        Array<{ grants: string | null }>,
        unknown,
      ];
      return Boolean(found?.grants);
    },
    /** Grants a platform role, creating the CapUser when CAP has not met the user; granting a held role changes nothing. */
    grantPlatformRole: (user: { userId: string; email: string }, role: PlatformRole) =>
      people.grantPlatformRole(sequelize, user, role),
    close: () => sequelize.close(),
  };
}

/**
 * The account of someone an operator makes a platform admin, from the Orchestrator's ProvisionAccount
 * at `grpcAddress` (get or create by email: a new account is mailed its password). A failed call
 * rejects with the kernel's GrpcCallError.
 */
export async function provisionAccount(
  grpcAddress: string,
  serviceKey: string,
  person: { email: string; name?: string },
): Promise<ProvisionAccountResponse> {
  const [{ createIdentityClient }, { newId }] = await Promise.all([
    import('../../contracts/orchestrator-client.ts'),
    import('../../platform/ids.ts'),
  ]);
  return createIdentityClient(() => grpcAddress, serviceKey).provisionAccount({
    email: person.email,
    intents: ['cap'],
    correlation_id: newId(),
    display_name: person.name?.trim() ?? '',
  });
}
