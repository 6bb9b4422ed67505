import type { QueryInterface } from 'sequelize';
import { callerChangedFunction, ownerChangedFunction } from '../../platform/db/caller-cache.ts';

/**
 * Says whose sessions changed, for the sessions the Orchestrator keeps live between requests (its
 * bearer check; platform/db/caller-cache.ts): a change of an account's status or its deletion, and
 * every change of a refresh token (issued, rotated, revoked, deleted), names the user, twice:
 * - a NOTICE `ol.caller_changed` to the session that makes the change, before it commits;
 * - a NOTIFY on `ol_caller_changed` to every listener, when it commits (changes made outside OL).
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.sequelize.query(callerChangedFunction('ol'));
  await q.sequelize.query(`
    CREATE FUNCTION ol.account_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM ol.caller_changed(OLD.id);
      RETURN NULL;
    END $$`);
  await q.sequelize.query(ownerChangedFunction('ol', 'session_row_changed', 'user_id'));
  await q.sequelize.query(
    `CREATE TRIGGER caller_changed AFTER UPDATE OF id, status OR DELETE ON ol.users FOR EACH ROW EXECUTE FUNCTION ol.account_changed()`,
  );
  await q.sequelize.query(
    `CREATE TRIGGER caller_changed AFTER INSERT OR UPDATE OR DELETE ON ol.refresh_tokens FOR EACH ROW EXECUTE FUNCTION ol.session_row_changed()`,
  );
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  for (const table of ['users', 'refresh_tokens'])
    await q.sequelize.query(`DROP TRIGGER caller_changed ON ol.${table}`);
  await q.sequelize.query('DROP FUNCTION ol.session_row_changed(), ol.account_changed(), ol.caller_changed(text)');
}
