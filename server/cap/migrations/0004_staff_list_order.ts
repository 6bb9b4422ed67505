import type { QueryInterface } from 'sequelize';

const table = { tableName: 'centre_staff', schema: 'cap' };

/**
 * The centre's staff list is read a page at a time in created-at or name order: with these, a page
 * is an index range scan however many members the centre has (email order has its unique index).
 */
export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.addIndex(table, ['centre_id', 'created_at', 'id'], { name: 'centre_staff_centre_created' });
  await context.addIndex(table, ['centre_id', 'name', 'id'], { name: 'centre_staff_centre_name' });
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query('DROP INDEX cap.centre_staff_centre_name, cap.centre_staff_centre_created');
}
