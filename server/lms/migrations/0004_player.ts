import { DataTypes, type QueryInterface } from 'sequelize';
import { foreignKey, idColumn, timestampColumns } from '../../platform/db/columns.ts';

const schema = 'lms';
const enrollments = { tableName: 'lms_enrollments', schema };
const items = { tableName: 'lms_items', schema };
const packages = { tableName: 'lms_scorm_packages', schema };
const progress = { tableName: 'lms_item_progress', schema };
const sessions = { tableName: 'lms_scorm_sessions', schema };
const attempts = { tableName: 'lms_assessment_attempts', schema };

/**
 * The player: extracted SCORM packages (one per package asset), each learner's progress per item
 * (with the last committed SCORM CMI, for resuming), SCORM runtime sessions with their content
 * tokens (kept hashed), and quiz attempts.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(packages, {
    package_asset_id: { type: DataTypes.STRING(100), primaryKey: true },
    scorm_version: { type: DataTypes.STRING(8), allowNull: false },
    sco_href: { type: DataTypes.STRING(500), allowNull: false },
    title: { type: DataTypes.STRING(500), allowNull: true },
    file_count: { type: DataTypes.INTEGER, allowNull: false },
    uncompressed_bytes: { type: DataTypes.BIGINT, allowNull: false },
    ...timestampColumns(),
  });

  await q.createTable(progress, {
    id: idColumn(),
    enrollment_id: foreignKey(enrollments),
    item_id: foreignKey(items),
    status: { type: DataTypes.STRING(16), allowNull: false },
    percent: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    score_percent: { type: DataTypes.INTEGER, allowNull: true },
    cmi: { type: DataTypes.JSONB, allowNull: true },
    completed_at: { type: DataTypes.DATE, allowNull: true },
    ...timestampColumns(),
  });
  await q.addConstraint(progress, {
    type: 'unique',
    fields: ['enrollment_id', 'item_id'],
    name: 'lms_item_progress_enrollment_item_key',
  });
  await q.addConstraint(progress, {
    type: 'check',
    fields: ['status'],
    where: { status: ['not_started', 'in_progress', 'completed', 'failed'] },
    name: 'lms_item_progress_status_check',
  });

  await q.createTable(sessions, {
    id: idColumn(),
    enrollment_id: foreignKey(enrollments),
    item_id: foreignKey(items),
    package_asset_id: { type: DataTypes.STRING(100), allowNull: false },
    sco_href: { type: DataTypes.STRING(500), allowNull: false },
    token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
    token_expires_at: { type: DataTypes.DATE, allowNull: false },
    ...timestampColumns(),
  });
  await q.addIndex(sessions, ['enrollment_id', 'item_id'], { name: 'lms_scorm_sessions_enrollment_idx' });

  await q.createTable(attempts, {
    id: idColumn(),
    enrollment_id: foreignKey(enrollments),
    item_id: foreignKey(items),
    status: { type: DataTypes.STRING(16), allowNull: false },
    answers: { type: DataTypes.JSONB, allowNull: true },
    score_percent: { type: DataTypes.INTEGER, allowNull: true },
    passed: { type: DataTypes.BOOLEAN, allowNull: true },
    started_at: { type: DataTypes.DATE, allowNull: false },
    submitted_at: { type: DataTypes.DATE, allowNull: true },
    ...timestampColumns(),
  });
  await q.addConstraint(attempts, {
    type: 'check',
    fields: ['status'],
    where: { status: ['in_progress', 'submitted'] },
    name: 'lms_assessment_attempts_status_check',
  });
  await q.addIndex(attempts, ['enrollment_id', 'item_id'], { name: 'lms_assessment_attempts_enrollment_idx' });
  // One open attempt per learner and quiz: starting again while one is open answers the open one.
  await q.addIndex(attempts, ['enrollment_id', 'item_id'], {
    unique: true,
    where: { status: 'in_progress' },
    name: 'lms_assessment_attempts_one_open_key',
  });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(attempts);
  await q.dropTable(sessions);
  await q.dropTable(progress);
  await q.dropTable(packages);
}
