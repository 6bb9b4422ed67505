import type { QueryInterface } from 'sequelize';

const staff = { tableName: 'centre_staff', schema: 'cap' };

/**
 * The super admins of each centre in the order they joined, for a centre's founder (its first super
 * admin), read with every row of the admins' list of centres: without it PostgreSQL read all of a
 * centre's staff to find the founder once one centre had thousands of them (bench/lists.ts).
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.addIndex(staff, ['centre_id', 'created_at', 'id'], {
    name: 'centre_staff_founders',
    where: { role: 'super_admin' },
  });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.sequelize.query('DROP INDEX cap.centre_staff_founders');
}
