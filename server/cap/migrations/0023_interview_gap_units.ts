import { DataTypes, type QueryInterface } from 'sequelize';

const interviews = { tableName: 'application_interviews', schema: 'cap' };

/** The NOS units the interview panel found not yet competent: the gap units of gap training. */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.addColumn(interviews, 'gap_unit_ids', { type: DataTypes.JSONB, allowNull: true });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.removeColumn(interviews, 'gap_unit_ids');
}
