import { DataTypes, type QueryInterface } from 'sequelize';

/** A candidate's signature: an Orchestrator storage asset (purpose signature), used on their forms. */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.addColumn({ tableName: 'users', schema: 'cap' }, 'signature_asset_id', {
    type: DataTypes.STRING(26),
    allowNull: true,
  });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.removeColumn({ tableName: 'users', schema: 'cap' }, 'signature_asset_id');
}
