import { DataTypes, type QueryInterface } from 'sequelize';
import { foreignKey, idColumn, timestampColumns } from '../../platform/db/columns.ts';

const schema = 'lms';
const users = { tableName: 'lms_users', schema };
const onboardings = { tableName: 'lms_onboardings', schema };
const profiles = { tableName: 'lms_profiles', schema };

/** LMS users (one per Orchestrator account), their per-persona onboardings and persona profiles. */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(users, {
    id: idColumn(),
    user_id: { type: DataTypes.STRING(64), allowNull: false, unique: true },
    email: { type: DataTypes.STRING(320), allowNull: true },
    display_name: { type: DataTypes.STRING(120), allowNull: true },
    photo_asset_id: { type: DataTypes.STRING(100), allowNull: true },
    status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' },
    ...timestampColumns(),
  });
  await q.addConstraint(users, {
    type: 'check',
    fields: ['status'],
    where: { status: ['active', 'deactivated'] },
    name: 'lms_users_status_check',
  });

  await q.createTable(onboardings, {
    id: idColumn(),
    lms_user_id: foreignKey(users),
    persona: { type: DataTypes.STRING(16), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false },
    data: { type: DataTypes.JSONB, allowNull: false },
    completed_at: { type: DataTypes.DATE, allowNull: true },
    ...timestampColumns(),
  });
  await q.addConstraint(onboardings, {
    type: 'unique',
    fields: ['lms_user_id', 'persona'],
    name: 'lms_onboardings_user_persona_key',
  });
  await q.addConstraint(onboardings, {
    type: 'check',
    fields: ['persona'],
    where: { persona: ['learner', 'instructor', 'staff'] },
    name: 'lms_onboardings_persona_check',
  });
  await q.addConstraint(onboardings, {
    type: 'check',
    fields: ['status'],
    where: { status: ['draft', 'completed'] },
    name: 'lms_onboardings_status_check',
  });

  await q.createTable(profiles, {
    id: idColumn(),
    lms_user_id: foreignKey(users),
    persona: { type: DataTypes.STRING(16), allowNull: false },
    ...timestampColumns(),
  });
  await q.addConstraint(profiles, {
    type: 'unique',
    fields: ['lms_user_id', 'persona'],
    name: 'lms_profiles_user_persona_key',
  });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(profiles);
  await q.dropTable(onboardings);
  await q.dropTable(users);
}
