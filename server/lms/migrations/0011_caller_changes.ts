import type { QueryInterface } from 'sequelize';

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
  await q.sequelize.query(`
    CREATE FUNCTION lms.caller_changed(who text) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      IF who IS NULL THEN RETURN; END IF;
      RAISE NOTICE USING MESSAGE = 'lms.caller_changed', DETAIL = who;
      PERFORM pg_notify('lms_caller_changed', who);
    END $$`);
  await q.sequelize.query(`
    CREATE FUNCTION lms.user_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN PERFORM lms.caller_changed(OLD.user_id); END IF;
      IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.user_id IS DISTINCT FROM OLD.user_id) THEN
        PERFORM lms.caller_changed(NEW.user_id);
      END IF;
      RETURN NULL;
    END $$`);
  await q.sequelize.query(`
    CREATE FUNCTION lms.member_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN
        PERFORM lms.caller_changed((SELECT u.user_id FROM lms.lms_users u WHERE u.id = OLD.lms_user_id));
      END IF;
      IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.lms_user_id IS DISTINCT FROM OLD.lms_user_id) THEN
        PERFORM lms.caller_changed((SELECT u.user_id FROM lms.lms_users u WHERE u.id = NEW.lms_user_id));
      END IF;
      RETURN NULL;
    END $$`);
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
