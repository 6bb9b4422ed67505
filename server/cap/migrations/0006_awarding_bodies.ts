import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'cap';
const bodies = { tableName: 'awarding_bodies', schema };
const members = { tableName: 'awarding_body_members', schema };

/**
 * Awarding bodies (made by platform admins) and their people. A member is `pending` until a new
 * account's first CAP call lets them in, or, for someone who already had an account, until they accept.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(bodies, {
    id: { type: DataTypes.STRING(26), primaryKey: true, allowNull: false },
    name: { type: DataTypes.STRING(200), allowNull: false },
    registration_no: { type: DataTypes.STRING(100), allowNull: false, unique: true },
    logo_asset_id: { type: DataTypes.STRING(64), allowNull: true },
    created_by: { type: DataTypes.STRING(26), allowNull: false },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.createTable(members, {
    id: { type: DataTypes.STRING(26), primaryKey: true, allowNull: false },
    awarding_body_id: {
      type: DataTypes.STRING(26),
      allowNull: false,
      references: { model: bodies, key: 'id' },
      onDelete: 'CASCADE',
    },
    user_id: {
      type: DataTypes.STRING(26),
      allowNull: false,
      references: { model: { tableName: 'users', schema }, key: 'user_id' },
    },
    name: { type: DataTypes.STRING(200), allowNull: true },
    email: { type: DataTypes.STRING(320), allowNull: false },
    role: { type: DataTypes.STRING(16), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false },
    requires_acceptance: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(members, ['awarding_body_id', 'email'], { unique: true, name: 'awarding_body_members_body_email' });
  await q.addIndex(members, ['user_id'], { name: 'awarding_body_members_user' });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(members);
  await q.dropTable(bodies);
}
