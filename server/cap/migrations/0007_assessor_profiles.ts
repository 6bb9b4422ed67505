import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'cap';
const profiles = { tableName: 'assessor_profiles', schema };

/**
 * An assessor's profile: made when the assessor onboarding is submitted, `pending` until a platform
 * admin approves it (moderation/lifecycle.ts). Assessors who onboarded before this exist get theirs now.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(profiles, {
    id: { type: DataTypes.STRING(26), primaryKey: true, allowNull: false },
    user_id: {
      type: DataTypes.STRING(26),
      allowNull: false,
      unique: true,
      references: { model: { tableName: 'users', schema }, key: 'user_id' },
    },
    status: { type: DataTypes.STRING(16), allowNull: false },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(profiles, ['created_at', 'id'], { name: 'assessor_profiles_created' });
  // The id of a backfilled profile is its onboarding's (both ULIDs).
  await q.sequelize.query(`
    INSERT INTO cap.assessor_profiles (id, user_id, status, created_at, updated_at)
    SELECT id, user_id, 'pending', coalesce(completed_at, created_at), now() FROM cap.onboardings
     WHERE persona = 'assessor' AND status = 'completed'`);
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(profiles);
}
