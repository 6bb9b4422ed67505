import type { QueryInterface } from 'sequelize';
import { callerChangedFunction, ownerChangedFunction } from '../../platform/db/caller-cache.ts';

/**
 * Says who changed, for the callers the LMS keeps between requests (platform/db/caller-cache.ts): every
 * table the caller statement reads (people/access) gets a trigger that names the Orchestrator user id
 * whose row changed, twice:
 * - a NOTICE `lms.caller_changed` to the session that makes the change, before it commits;
 * - a NOTIFY on `lms_caller_changed` to every listener, when it commits (changes made outside the LMS).
 * Onboardings and staff memberships name their LMS user, whose Orchestrator id is looked up.
 */
const memberTables = ['lms_onboardings', 'lms_staff_members'];

export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.sequelize.query(callerChangedFunction('lms'));
  await q.sequelize.query(ownerChangedFunction('lms', 'user_row_changed', 'user_id'));
  await q.sequelize.query(
    ownerChangedFunction(
      'lms',
      'member_row_changed',
      'lms_user_id',
      (row) => `(SELECT u.user_id FROM lms.lms_users u WHERE u.id = ${row}.lms_user_id)`,
    ),
  );
  await q.sequelize.query(
    `CREATE TRIGGER caller_changed AFTER INSERT OR UPDATE OR DELETE ON lms.lms_users FOR EACH ROW EXECUTE FUNCTION lms.user_row_changed()`,
  );
  for (const table of memberTables) {
    await q.sequelize.query(
      `CREATE TRIGGER caller_changed AFTER INSERT OR UPDATE OR DELETE ON lms.${table} FOR EACH ROW EXECUTE FUNCTION lms.member_row_changed()`,
    );
  }
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  for (const table of ['lms_users', ...memberTables])
    await q.sequelize.query(`DROP TRIGGER caller_changed ON lms.${table}`);
  await q.sequelize.query('DROP FUNCTION lms.member_row_changed(), lms.user_row_changed(), lms.caller_changed(text)');
}
