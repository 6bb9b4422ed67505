import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'ol';
const inbox = { tableName: 'inbox_notifications', schema };
const preferences = { tableName: 'notification_preferences', schema };
const devSms = { tableName: 'dev_sms', schema };
const timestamps = {
  created_at: { type: DataTypes.DATE, allowNull: false },
  updated_at: { type: DataTypes.DATE, allowNull: false },
};

/** The notification inbox (in_app), channel preferences, and the dev SMS sink. */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(inbox, {
    // The notification's id: one inbox row per notification.requested.
    id: { type: DataTypes.STRING(26), primaryKey: true, allowNull: false },
    user_id: { type: DataTypes.STRING(26), allowNull: false },
    category: { type: DataTypes.STRING(16), allowNull: false },
    type: { type: DataTypes.STRING(64), allowNull: false },
    title: { type: DataTypes.TEXT, allowNull: false },
    description: { type: DataTypes.TEXT, allowNull: false },
    link: { type: DataTypes.TEXT, allowNull: true },
    metadata: { type: DataTypes.JSONB, allowNull: true },
    read_at: { type: DataTypes.DATE, allowNull: true },
    ...timestamps,
  });
  await q.addIndex(inbox, ['user_id', 'id'], { name: 'inbox_notifications_user' });
  await q.addConstraint(inbox, {
    type: 'check',
    name: 'inbox_notifications_category_check',
    fields: ['category'],
    where: { category: ['application', 'assessment', 'system', 'security'] },
  });

  await q.createTable(preferences, {
    user_id: { type: DataTypes.STRING(26), primaryKey: true, allowNull: false },
    email: { type: DataTypes.BOOLEAN, allowNull: false },
    sms: { type: DataTypes.BOOLEAN, allowNull: false },
    in_app: { type: DataTypes.BOOLEAN, allowNull: false },
    sms_number: { type: DataTypes.STRING(20), allowNull: true },
    ...timestamps,
  });

  await q.createTable(devSms, {
    id: { type: DataTypes.STRING(26), primaryKey: true, allowNull: false },
    notification_id: { type: DataTypes.STRING(26), allowNull: false },
    to_number: { type: DataTypes.STRING(20), allowNull: false },
    text: { type: DataTypes.TEXT, allowNull: false },
    ...timestamps,
  });
  await q.addIndex(devSms, ['to_number', 'id'], { name: 'dev_sms_to_number_id' });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  for (const table of [devSms, preferences, inbox]) await q.dropTable(table);
}
