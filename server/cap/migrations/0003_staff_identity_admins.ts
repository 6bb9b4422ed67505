import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'cap';
const table = (tableName: string) => ({ tableName, schema });

/**
 * Identity verification results and the first CAP call on users; the invited name and email on
 * centre staff; platform role grants.
 */
export async function up({ context }: { context: QueryInterface }): Promise<void> {
  // The outcome of the identity check that verified the user; never the document number.
  await context.addColumn(table('users'), 'identity_provider', { type: DataTypes.STRING(32), allowNull: true });
  await context.addColumn(table('users'), 'identity_provider_reference', {
    type: DataTypes.STRING(128),
    allowNull: true,
  });
  await context.addColumn(table('users'), 'identity_verified_at', { type: DataTypes.DATE, allowNull: true });
  // Null until the user's first authenticated CAP call: pending staff memberships wait for it.
  await context.addColumn(table('users'), 'first_seen_at', { type: DataTypes.DATE, allowNull: true });

  await context.addColumn(table('centre_staff'), 'name', { type: DataTypes.STRING(200), allowNull: true });
  await context.addColumn(table('centre_staff'), 'email', { type: DataTypes.STRING(320), allowNull: true });
  // Owners who joined through the centre onboarding before this migration.
  await context.sequelize.query(
    `UPDATE cap.centre_staff s SET email = lower(u.email) FROM cap.users u WHERE u.user_id = s.user_id`,
  );
  await context.sequelize.query(`
    UPDATE cap.centre_staff s
    SET name = NULLIF(concat_ws(' ', o.data #>> '{owner,personalDetails,firstName}', o.data #>> '{owner,personalDetails,lastName}'), '')
    FROM cap.onboardings o
    WHERE o.user_id = s.user_id AND o.persona = 'centre'`);
  await context.changeColumn(table('centre_staff'), 'email', { type: DataTypes.STRING(320), allowNull: false });
  await context.addIndex(table('centre_staff'), ['centre_id', 'email'], {
    unique: true,
    name: 'centre_staff_centre_email',
  });

  await context.createTable(table('platform_role_grants'), {
    user_id: { type: DataTypes.STRING(26), primaryKey: true, references: { model: table('users'), key: 'user_id' } },
    role: { type: DataTypes.STRING(32), primaryKey: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.dropTable(table('platform_role_grants'));
  await context.sequelize.query('DROP INDEX cap.centre_staff_centre_email');
  await context.removeColumn(table('centre_staff'), 'email');
  await context.removeColumn(table('centre_staff'), 'name');
  for (const column of ['first_seen_at', 'identity_verified_at', 'identity_provider_reference', 'identity_provider']) {
    await context.removeColumn(table('users'), column);
  }
}
