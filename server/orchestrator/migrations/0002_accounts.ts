import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'ol';
const users = { tableName: 'users', schema };
const otps = { tableName: 'otps', schema };
const otpSends = { tableName: 'otp_sends', schema };
const refreshTokens = { tableName: 'refresh_tokens', schema };
const signingKeys = { tableName: 'signing_keys', schema };

const id = { type: DataTypes.STRING(26), primaryKey: true, allowNull: false };
const timestamps = {
  created_at: { type: DataTypes.DATE, allowNull: false },
  updated_at: { type: DataTypes.DATE, allowNull: false },
};

/** Accounts (users, one-time codes, refresh-token families) and the access-token signing keys. */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(users, {
    id,
    // Stored trimmed and lower-cased, so the unique index below is the uniqueness rule.
    email: { type: DataTypes.STRING(254), allowNull: false },
    password_hash: { type: DataTypes.TEXT, allowNull: true },
    auth_provider: { type: DataTypes.STRING(16), allowNull: false },
    google_sub: { type: DataTypes.STRING(255), allowNull: true },
    status: { type: DataTypes.STRING(32), allowNull: false },
    intents: { type: DataTypes.ARRAY(DataTypes.STRING(16)), allowNull: false, defaultValue: [] },
    must_change_password: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    deactivated_at: { type: DataTypes.DATE, allowNull: true },
    ...timestamps,
  });
  await q.addIndex(users, ['email'], { unique: true, name: 'users_email_unique' });
  await q.addIndex(users, ['google_sub'], { unique: true, name: 'users_google_sub_unique' });
  await q.addConstraint(users, {
    type: 'check',
    name: 'users_status_check',
    fields: ['status'],
    where: { status: ['pending_verification', 'active', 'suspended', 'deactivated'] },
  });
  await q.addConstraint(users, {
    type: 'check',
    name: 'users_auth_provider_check',
    fields: ['auth_provider'],
    where: { auth_provider: ['password', 'google'] },
  });

  await q.createTable(otps, {
    id,
    user_id: {
      type: DataTypes.STRING(26),
      allowNull: false,
      references: { model: users, key: 'id' },
      onDelete: 'CASCADE',
    },
    purpose: { type: DataTypes.STRING(32), allowNull: false },
    code_hash: { type: DataTypes.STRING(64), allowNull: false },
    expires_at: { type: DataTypes.DATE, allowNull: false },
    attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    ...timestamps,
  });
  // One live code per user and purpose: issuing a new one replaces the row.
  await q.addIndex(otps, ['user_id', 'purpose'], { unique: true, name: 'otps_user_purpose_unique' });

  // Every OTP mail request per address (known or not), for the hourly limit.
  await q.createTable(otpSends, {
    id,
    email: { type: DataTypes.STRING(254), allowNull: false },
    purpose: { type: DataTypes.STRING(32), allowNull: false },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(otpSends, ['email', 'created_at'], { name: 'otp_sends_email_created_at' });
  await q.addIndex(otpSends, ['created_at'], { name: 'otp_sends_created_at' });

  await q.createTable(refreshTokens, {
    id,
    user_id: {
      type: DataTypes.STRING(26),
      allowNull: false,
      references: { model: users, key: 'id' },
      onDelete: 'CASCADE',
    },
    // Every token descending from one sign-in shares the family id; reuse of a rotated token revokes the family.
    family_id: { type: DataTypes.STRING(26), allowNull: false },
    parent_id: { type: DataTypes.STRING(26), allowNull: true },
    token_hash: { type: DataTypes.STRING(64), allowNull: false },
    expires_at: { type: DataTypes.DATE, allowNull: false },
    used_at: { type: DataTypes.DATE, allowNull: true },
    revoked_at: { type: DataTypes.DATE, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(refreshTokens, ['token_hash'], { unique: true, name: 'refresh_tokens_hash_unique' });
  await q.addIndex(refreshTokens, ['family_id'], { name: 'refresh_tokens_family' });
  await q.addIndex(refreshTokens, ['user_id'], { name: 'refresh_tokens_user' });

  await q.createTable(signingKeys, {
    kid: { type: DataTypes.STRING(64), primaryKey: true, allowNull: false },
    private_key_pem: { type: DataTypes.TEXT, allowNull: false },
    public_jwk: { type: DataTypes.JSONB, allowNull: false },
    active: { type: DataTypes.BOOLEAN, allowNull: false },
    retired_at: { type: DataTypes.DATE, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
  // At most one key signs at a time.
  await q.addIndex(signingKeys, ['active'], { unique: true, name: 'signing_keys_one_active', where: { active: true } });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(signingKeys);
  await q.dropTable(refreshTokens);
  await q.dropTable(otpSends);
  await q.dropTable(otps);
  await q.dropTable(users);
}
