import type { QueryInterface } from 'sequelize';

const users = { tableName: 'lms_users', schema: 'lms' };

/** The learner directory's default order (joined, newest first): walked in that order instead of sorted whole. */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.addIndex(users, ['created_at', 'id'], { name: 'lms_users_created' });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.sequelize.query('DROP INDEX lms.lms_users_created');
}
