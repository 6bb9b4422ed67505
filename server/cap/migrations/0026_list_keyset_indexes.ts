import type { QueryInterface } from 'sequelize';

const interviews = { tableName: 'application_interviews', schema: 'cap' };
const payments = { tableName: 'application_payments', schema: 'cap' };

/**
 * Indexes in the keyset order of two lists (bench/lists.ts): a centre's interview bookings by time and
 * then id (sittings at the same time no longer sort the whole diary), a centre's payments by id.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  // removeIndex names the index without its schema, which is not on the search path.
  await q.sequelize.query('DROP INDEX cap.application_interviews_diary');
  await q.addIndex(interviews, ['centre_id', 'scheduled_at', 'id'], { name: 'application_interviews_diary' });
  await q.addIndex(payments, ['centre_id', 'id'], { name: 'application_payments_centre_list' });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.sequelize.query('DROP INDEX cap.application_payments_centre_list, cap.application_interviews_diary');
  await q.addIndex(interviews, ['centre_id', 'scheduled_at'], { name: 'application_interviews_diary' });
}
