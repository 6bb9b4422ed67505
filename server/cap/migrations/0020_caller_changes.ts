import type { QueryInterface } from 'sequelize';
import { callerChangedFunction, ownerChangedFunction } from '../../platform/db/caller-cache.ts';

/**
 * Says who changed, for the callers CAP keeps between requests (platform/db/caller-cache.ts): every table the
 * caller statement reads gets a trigger that names the user whose row changed, or `*` when a centre or
 * an awarding body changes its name or status (part of every member's standing), twice:
 * - a NOTICE `cap.caller_changed` to the session that makes the change, before it commits;
 * - a NOTIFY on `cap_caller_changed` to every listener, when it commits (changes made outside CAP).
 */
const userTables = ['users', 'onboardings', 'centre_staff', 'awarding_body_members', 'assessor_profiles'];
/** The columns of an organisation that its members' standing shows. */
const organisationTables = { centres: ['name', 'status'], awarding_bodies: ['name'] };

export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.sequelize.query(callerChangedFunction('cap'));
  await q.sequelize.query(ownerChangedFunction('cap', 'user_row_changed', 'user_id'));
  await q.sequelize.query(`
    CREATE FUNCTION cap.organisation_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM cap.caller_changed('*');
      RETURN NULL;
    END $$`);
  for (const table of userTables) {
    await q.sequelize.query(
      `CREATE TRIGGER caller_changed AFTER INSERT OR UPDATE OR DELETE ON cap.${table} FOR EACH ROW EXECUTE FUNCTION cap.user_row_changed()`,
    );
  }
  // Inserting or deleting an organisation changes nobody's standing by itself (members are rows of
  // their own, and a delete cascades to them); a new name or status does.
  for (const [table, columns] of Object.entries(organisationTables)) {
    const changed = columns.map((c) => `OLD.${c} IS DISTINCT FROM NEW.${c}`).join(' OR ');
    await q.sequelize.query(
      `CREATE TRIGGER caller_changed AFTER UPDATE OF ${columns.join(', ')} ON cap.${table} FOR EACH ROW
         WHEN (${changed}) EXECUTE FUNCTION cap.organisation_changed()`,
    );
  }
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  for (const table of [...userTables, ...Object.keys(organisationTables)])
    await q.sequelize.query(`DROP TRIGGER caller_changed ON cap.${table}`);
  await q.sequelize.query('DROP FUNCTION cap.organisation_changed(), cap.user_row_changed(), cap.caller_changed(text)');
}
