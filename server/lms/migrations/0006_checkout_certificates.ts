import { DataTypes, type QueryInterface } from 'sequelize';
import { foreignKey, idColumn, timestampColumns } from '../../platform/db/columns.ts';

const schema = 'lms';
const users = { tableName: 'lms_users', schema };
const courses = { tableName: 'lms_courses', schema };
const enrollments = { tableName: 'lms_enrollments', schema };
const payments = { tableName: 'lms_payments', schema };
const certificates = { tableName: 'lms_certificates', schema };

/**
 * Checkout attempts (one Orchestrator payment each; the amount is the LMS's price, never the
 * client's) and LMS certificates (one per completed enrollment, with a verification code and the PDF
 * asset).
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(payments, {
    id: idColumn(),
    kind: { type: DataTypes.STRING(8), allowNull: false },
    enrollment_id: foreignKey(enrollments, { onDelete: 'RESTRICT' }),
    learner_lms_user_id: foreignKey(users, { onDelete: 'RESTRICT' }),
    attempt: { type: DataTypes.INTEGER, allowNull: false },
    payment_id: { type: DataTypes.STRING(64), allowNull: false, unique: true },
    reference: { type: DataTypes.STRING(128), allowNull: false },
    checkout_url: { type: DataTypes.STRING(2000), allowNull: false },
    amount_minor_units: { type: DataTypes.BIGINT, allowNull: false },
    currency: { type: DataTypes.STRING(3), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false },
    initiated_at: { type: DataTypes.DATE, allowNull: false },
    paid_at: { type: DataTypes.DATE, allowNull: true },
    ...timestampColumns(),
  });
  await q.addConstraint(payments, {
    type: 'unique',
    fields: ['enrollment_id', 'attempt'],
    name: 'lms_payments_enrollment_attempt_key',
  });
  await q.addConstraint(payments, {
    type: 'check',
    fields: ['status'],
    where: { status: ['pending', 'completed', 'failed'] },
    name: 'lms_payments_status_check',
  });
  await q.addConstraint(payments, {
    type: 'check',
    fields: ['kind'],
    where: { kind: ['course', 'level'] },
    name: 'lms_payments_kind_check',
  });

  await q.createTable(certificates, {
    id: idColumn(),
    enrollment_id: { ...foreignKey(enrollments, { onDelete: 'RESTRICT' }), unique: true },
    course_id: foreignKey(courses, { onDelete: 'RESTRICT' }),
    learner_lms_user_id: foreignKey(users, { onDelete: 'RESTRICT' }),
    status: { type: DataTypes.STRING(16), allowNull: false },
    verification_code: { type: DataTypes.STRING(32), allowNull: false, unique: true },
    asset_id: { type: DataTypes.STRING(100), allowNull: true },
    issued_at: { type: DataTypes.DATE, allowNull: false },
    revoked_at: { type: DataTypes.DATE, allowNull: true },
    ...timestampColumns(),
  });
  await q.addConstraint(certificates, {
    type: 'check',
    fields: ['status'],
    where: { status: ['issued', 'revoked'] },
    name: 'lms_certificates_status_check',
  });
  await q.addIndex(certificates, ['learner_lms_user_id', 'id'], { name: 'lms_certificates_learner_idx' });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(certificates);
  await q.dropTable(payments);
}
