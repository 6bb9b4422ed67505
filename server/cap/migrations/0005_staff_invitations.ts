import { DataTypes, type QueryInterface } from 'sequelize';

const table = { tableName: 'centre_staff', schema: 'cap' };

/**
 * Someone who already had an account when a centre added them is invited, not enrolled: the
 * membership waits for them to accept it (a new account is let in by its first sign-in, as before).
 */
export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.addColumn(table, 'requires_acceptance', {
    type: DataTypes.BOOLEAN,
    allowNull: false,
    defaultValue: false,
  });
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.removeColumn(table, 'requires_acceptance');
}
