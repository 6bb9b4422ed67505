import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'cap';
const table = (tableName: string) => ({ tableName, schema });
const id = { type: DataTypes.STRING(26), primaryKey: true, allowNull: false };
const ref = (tableName: string, key = 'id', onDelete?: 'CASCADE') => ({
  type: DataTypes.STRING(26),
  allowNull: false,
  references: { model: table(tableName), key },
  ...(onDelete ? { onDelete } : {}),
});
const timestamps = {
  created_at: { type: DataTypes.DATE, allowNull: false },
  updated_at: { type: DataTypes.DATE, allowNull: false },
};

/**
 * Assessors at work (assessors/assignments.ts, assessors/market.ts):
 * - `application_assessors`: who works on which application, in which role (the vocabulary is
 *   `assignmentRoles` in assessors/assignments.ts); an assignment ends (`ended_at`) rather than goes.
 * - `assessor_sectors`: the catalogue sectors an assessor works in (the marketplace shows them only
 *   postings of those sectors).
 * - `retained_requests`: an assessor asking a centre to retain them, and the centre's answer; at most one
 *   pending or approved request per assessor and centre.
 * - `job_postings` and `job_posting_applications`: a centre's openings and the assessors who applied, once each.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(table('application_assessors'), {
    id,
    application_id: ref('applications', 'id', 'CASCADE'),
    assessor_id: ref('assessor_profiles'),
    centre_id: ref('centres'),
    role: { type: DataTypes.STRING(20), allowNull: false },
    lead: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    assigned_by: { type: DataTypes.STRING(26), allowNull: true, references: { model: table('users'), key: 'user_id' } },
    assigned_at: { type: DataTypes.DATE, allowNull: false },
    ended_at: { type: DataTypes.DATE, allowNull: true },
  });
  await q.sequelize.query(
    `ALTER TABLE cap.application_assessors ADD CONSTRAINT application_assessors_role
       CHECK (role IN ('facilitator', 'panel_voter', 'iv_observer', 'iv', 'ev', 'unit_assessor'))`,
  );
  // One current assignment of a person in a role on an application.
  await q.sequelize.query(
    `CREATE UNIQUE INDEX application_assessors_current ON cap.application_assessors (application_id, assessor_id, role) WHERE ended_at IS NULL`,
  );
  await q.addIndex(table('application_assessors'), ['assessor_id', 'centre_id'], {
    name: 'application_assessors_assessor',
  });

  await q.createTable(table('assessor_sectors'), {
    assessor_id: { ...ref('assessor_profiles', 'id', 'CASCADE'), primaryKey: true },
    sector_id: { ...ref('sectors', 'id', 'CASCADE'), primaryKey: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });

  await q.createTable(table('retained_requests'), {
    id,
    assessor_id: ref('assessor_profiles'),
    centre_id: ref('centres'),
    preferred_role: { type: DataTypes.STRING(24), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false },
    responded_at: { type: DataTypes.DATE, allowNull: true },
    responded_by: {
      type: DataTypes.STRING(26),
      allowNull: true,
      references: { model: table('users'), key: 'user_id' },
    },
    ...timestamps,
  });
  await q.sequelize.query(
    `CREATE UNIQUE INDEX retained_requests_open ON cap.retained_requests (assessor_id, centre_id) WHERE status IN ('pending', 'approved')`,
  );
  await q.addIndex(table('retained_requests'), ['centre_id', 'id'], { name: 'retained_requests_centre' });

  await q.createTable(table('job_postings'), {
    id,
    centre_id: ref('centres'),
    trade_id: ref('trades'),
    title: { type: DataTypes.STRING(200), allowNull: false },
    slot: { type: DataTypes.INTEGER, allowNull: false },
    deadline: { type: DataTypes.DATE, allowNull: false },
    description: { type: DataTypes.TEXT, allowNull: false },
    requirements: { type: DataTypes.JSONB, allowNull: false },
    duration: { type: DataTypes.STRING(100), allowNull: true },
    status: { type: DataTypes.STRING(16), allowNull: false },
    created_by: { type: DataTypes.STRING(26), allowNull: false, references: { model: table('users'), key: 'user_id' } },
    ...timestamps,
  });
  await q.addIndex(table('job_postings'), ['centre_id', 'id'], { name: 'job_postings_centre' });
  await q.addIndex(table('job_postings'), ['status', 'deadline'], { name: 'job_postings_open' });

  await q.createTable(table('job_posting_applications'), {
    id,
    job_posting_id: ref('job_postings'),
    assessor_id: ref('assessor_profiles'),
    status: { type: DataTypes.STRING(16), allowNull: false },
    decided_at: { type: DataTypes.DATE, allowNull: true },
    decided_by: { type: DataTypes.STRING(26), allowNull: true, references: { model: table('users'), key: 'user_id' } },
    ...timestamps,
  });
  await q.addIndex(table('job_posting_applications'), ['job_posting_id', 'assessor_id'], {
    name: 'job_posting_applications_once',
    unique: true,
  });
  await q.addIndex(table('job_posting_applications'), ['assessor_id', 'id'], {
    name: 'job_posting_applications_assessor',
  });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  for (const name of [
    'job_posting_applications',
    'job_postings',
    'retained_requests',
    'assessor_sectors',
    'application_assessors',
  ])
    await q.dropTable(table(name));
}
