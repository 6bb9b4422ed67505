import type { QueryInterface } from 'sequelize';

/**
 * The caller statement reads the caller's platform roles too (the admin operations' permission check
 * costs no statement of its own), so a grant says who changed like every other table it reads
 * (migration 0020): a granted or withdrawn role drops the kept caller.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.sequelize.query(
    `CREATE TRIGGER caller_changed AFTER INSERT OR UPDATE OR DELETE ON cap.platform_role_grants FOR EACH ROW EXECUTE FUNCTION cap.user_row_changed()`,
  );
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.sequelize.query('DROP TRIGGER caller_changed ON cap.platform_role_grants');
}
