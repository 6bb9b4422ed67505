import { DataTypes, type QueryInterface } from 'sequelize';

const table = { tableName: 'centre_notification_policies', schema: 'cap' };

/** Who at a centre hears of each event (CentreNotificationPolicy). No row: the default policy applies. */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(table, {
    centre_id: {
      type: DataTypes.STRING(26),
      primaryKey: true,
      allowNull: false,
      references: { model: { tableName: 'centres', schema: 'cap' }, key: 'id' },
      onDelete: 'CASCADE',
    },
    // [{event, recipientCapUserIds, recipientRoles}], one entry per event that differs from the default.
    events: { type: DataTypes.JSONB, allowNull: false },
    updated_by: { type: DataTypes.STRING(26), allowNull: false },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(table);
}
