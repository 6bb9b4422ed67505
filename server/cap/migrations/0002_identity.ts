import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'cap';
const table = (tableName: string) => ({ tableName, schema });
const timestamps = {
  created_at: { type: DataTypes.DATE, allowNull: false },
  updated_at: { type: DataTypes.DATE, allowNull: false },
};

/** Keeps a status or role column to its vocabulary in the database too. */
async function oneOf(context: QueryInterface, tableName: string, field: string, values: string[]) {
  await context.addConstraint(table(tableName), {
    type: 'check',
    name: `${tableName}_${field}_check`,
    fields: [field],
    where: { [field]: values },
  });
}

/** CAP identity: users (keyed by the Orchestrator user id), onboarding per persona, centres and their staff. */
export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.createTable(table('users'), {
    user_id: { type: DataTypes.STRING(26), primaryKey: true },
    email: { type: DataTypes.STRING(320), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' },
    identity_verified: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    profile: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
    ...timestamps,
  });
  await oneOf(context, 'users', 'status', ['active', 'deactivated']);

  await context.createTable(table('onboardings'), {
    id: { type: DataTypes.STRING(26), primaryKey: true },
    user_id: { type: DataTypes.STRING(26), allowNull: false, references: { model: table('users'), key: 'user_id' } },
    persona: { type: DataTypes.STRING(16), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'draft' },
    data: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
    completed_at: { type: DataTypes.DATE, allowNull: true },
    ...timestamps,
  });
  await oneOf(context, 'onboardings', 'persona', ['candidate', 'centre', 'assessor', 'awarding_body']);
  await oneOf(context, 'onboardings', 'status', ['draft', 'completed']);
  await context.addIndex(table('onboardings'), ['user_id', 'persona'], {
    unique: true,
    name: 'onboardings_user_persona',
  });

  await context.createTable(table('centres'), {
    id: { type: DataTypes.STRING(26), primaryKey: true },
    name: { type: DataTypes.STRING(200), allowNull: false },
    registration_no: { type: DataTypes.STRING(100), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'pending' },
    logo_asset_id: { type: DataTypes.STRING(64), allowNull: true },
    address: { type: DataTypes.JSONB, allowNull: true },
    support_contact: { type: DataTypes.JSONB, allowNull: true },
    account_details: { type: DataTypes.JSONB, allowNull: true },
    created_by: { type: DataTypes.STRING(26), allowNull: true, references: { model: table('users'), key: 'user_id' } },
    ...timestamps,
  });
  await oneOf(context, 'centres', 'status', ['pending', 'approved', 'suspended', 'rejected']);

  await context.createTable(table('centre_staff'), {
    id: { type: DataTypes.STRING(26), primaryKey: true },
    centre_id: { type: DataTypes.STRING(26), allowNull: false, references: { model: table('centres'), key: 'id' } },
    user_id: { type: DataTypes.STRING(26), allowNull: false, references: { model: table('users'), key: 'user_id' } },
    role: { type: DataTypes.STRING(16), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false },
    ...timestamps,
  });
  await oneOf(context, 'centre_staff', 'role', ['super_admin', 'regular_admin', 'staff']);
  await oneOf(context, 'centre_staff', 'status', ['pending', 'active', 'inactive']);
  await context.addIndex(table('centre_staff'), ['centre_id', 'user_id'], {
    unique: true,
    name: 'centre_staff_centre_user',
  });
  await context.addIndex(table('centre_staff'), ['user_id'], { name: 'centre_staff_user' });
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.dropTable(table('centre_staff'));
  await context.dropTable(table('centres'));
  await context.dropTable(table('onboardings'));
  await context.dropTable(table('users'));
}
