/**
 * Which of the seeds' addresses have accounts, read in the platform's database: only on a platform
 * that has no platform admin yet (the seeds' first one is made by the run), where no one can read
 * them through the API (POST /v1/cap/admin/accounts/lookup). Read once, before the plan.
 */
import pg from 'pg';

export interface Account {
  userId: string;
  status: string;
  /** Provisioned with a mailed password not yet changed (a centre's super admin made by an admin). */
  mustChangePassword: boolean;
  platformAdmin: boolean;
}

export interface PlatformDb {
  accounts(emails: string[]): Promise<Map<string, Account>>;
  close(): Promise<void>;
}

export function openPlatformDb(databaseUrl: string): PlatformDb {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  return {
    async accounts(emails) {
      const { rows } = await pool.query<{
        id: string;
        email: string;
        status: string;
        must_change_password: boolean;
        platform_admin: boolean;
      }>(
        `SELECT u.id, lower(u.email) AS email, u.status, u.must_change_password,
                EXISTS (SELECT 1 FROM cap.platform_role_grants g WHERE g.user_id = u.id AND g.role = 'platform_admin') AS platform_admin
           FROM ol.users u WHERE lower(u.email) = ANY($1)`,
        [emails.map((e) => e.toLowerCase())],
      );
      return new Map(
        rows.map((r) => [
          r.email,
          {
            userId: r.id,
            status: r.status,
            mustChangePassword: r.must_change_password,
            platformAdmin: r.platform_admin,
          },
        ]),
      );
    },
    close: () => pool.end(),
  };
}
