import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'ol';
const timestamps = {
  created_at: { type: DataTypes.DATE, allowNull: false },
  updated_at: { type: DataTypes.DATE, allowNull: false },
};

/** Outgoing mail (the send queue), the dev mailbox, and the sandbox Google issuer's signing key. */
export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.createTable(
    { tableName: 'notifications', schema },
    {
      id: { type: DataTypes.STRING(26), primaryKey: true },
      user_id: { type: DataTypes.STRING(26), allowNull: true },
      channel: { type: DataTypes.STRING(16), allowNull: false },
      template: { type: DataTypes.STRING(64), allowNull: false },
      to_address: { type: DataTypes.STRING(320), allowNull: false },
      subject: { type: DataTypes.TEXT, allowNull: false },
      // The rendered body and, in development mode, its secret for the dev mailbox: both erased once
      // delivered (see notifications/service.ts).
      text: { type: DataTypes.TEXT, allowNull: true },
      secrets: { type: DataTypes.JSONB, allowNull: true },
      status: { type: DataTypes.STRING(16), allowNull: false },
      sent_at: { type: DataTypes.DATE, allowNull: true },
      ...timestamps,
    },
  );

  await context.createTable(
    { tableName: 'dev_mailbox', schema },
    {
      id: { type: DataTypes.STRING(26), primaryKey: true },
      notification_id: { type: DataTypes.STRING(26), allowNull: true },
      to_address: { type: DataTypes.STRING(320), allowNull: false },
      template: { type: DataTypes.STRING(64), allowNull: false },
      subject: { type: DataTypes.TEXT, allowNull: false },
      text: { type: DataTypes.TEXT, allowNull: false },
      otp: { type: DataTypes.STRING(16), allowNull: true },
      password: { type: DataTypes.STRING(128), allowNull: true },
      ...timestamps,
    },
  );
  await context.addIndex({ tableName: 'dev_mailbox', schema }, ['to_address', 'id'], {
    name: 'dev_mailbox_to_address_id',
  });

  await context.createTable(
    { tableName: 'google_sandbox_keys', schema },
    {
      id: { type: DataTypes.STRING(26), primaryKey: true },
      private_key_pem: { type: DataTypes.TEXT, allowNull: false },
      public_jwk: { type: DataTypes.JSONB, allowNull: false },
      ...timestamps,
    },
  );
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.dropTable({ tableName: 'google_sandbox_keys', schema });
  await context.dropTable({ tableName: 'dev_mailbox', schema });
  await context.dropTable({ tableName: 'notifications', schema });
}
