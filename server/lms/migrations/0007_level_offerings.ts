import { DataTypes, type QueryInterface } from 'sequelize';
import { foreignKey, idColumn, timestampColumns } from '../../platform/db/columns.ts';

const schema = 'lms';
const users = { tableName: 'lms_users', schema };
const courses = { tableName: 'lms_courses', schema };
const offerings = { tableName: 'lms_level_offerings', schema };
const members = { tableName: 'lms_level_offering_courses', schema };
const levelEnrollments = { tableName: 'lms_level_enrollments', schema };
const payments = { tableName: 'lms_payments', schema };
const allocations = { tableName: 'lms_seat_allocations', schema };
const allocationLevels = { tableName: 'lms_seat_allocation_levels', schema };

/**
 * Level offerings (the courses of one CAP qualification level sold together, one published per
 * level), their level enrollments (the amount fixed at enrolment, the member courses still to grant),
 * checkout attempts of either kind, and the levels of a seat allocation.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(offerings, {
    id: idColumn(),
    cap_qualification_level_id: { type: DataTypes.STRING(64), allowNull: false },
    title: { type: DataTypes.STRING(200), allowNull: false },
    description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    status: { type: DataTypes.STRING(16), allowNull: false },
    // Null: the sum of the members' prices.
    price_minor_units: { type: DataTypes.BIGINT, allowNull: true },
    currency: { type: DataTypes.STRING(3), allowNull: false },
    published_at: { type: DataTypes.DATE, allowNull: true },
    created_by: foreignKey(users, { onDelete: 'RESTRICT' }),
    ...timestampColumns(),
  });
  await q.addConstraint(offerings, {
    type: 'check',
    fields: ['status'],
    where: { status: ['draft', 'published', 'archived'] },
    name: 'lms_level_offerings_status_check',
  });
  await q.addIndex(offerings, ['cap_qualification_level_id'], {
    unique: true,
    where: { status: 'published' },
    name: 'lms_level_offerings_one_published_per_level',
  });

  await q.createTable(members, {
    offering_id: { ...foreignKey(offerings, { onDelete: 'RESTRICT' }), primaryKey: true, onDelete: 'CASCADE' },
    course_id: { ...foreignKey(courses, { onDelete: 'RESTRICT' }), primaryKey: true },
    position: { type: DataTypes.INTEGER, allowNull: false },
  });

  await q.createTable(levelEnrollments, {
    id: idColumn(),
    offering_id: foreignKey(offerings, { onDelete: 'RESTRICT' }),
    learner_lms_user_id: foreignKey(users, { onDelete: 'RESTRICT' }),
    status: { type: DataTypes.STRING(16), allowNull: false },
    amount_minor_units: { type: DataTypes.BIGINT, allowNull: false },
    currency: { type: DataTypes.STRING(3), allowNull: false },
    // The members the learner did not hold at enrolment: what the payment grants.
    course_ids: { type: DataTypes.JSONB, allowNull: false },
    payment_id: { type: DataTypes.STRING(64), allowNull: true },
    ...timestampColumns(),
  });
  await q.addConstraint(levelEnrollments, {
    type: 'check',
    fields: ['status'],
    where: { status: ['pending', 'active', 'expired', 'withdrawn'] },
    name: 'lms_level_enrollments_status_check',
  });
  // One open (pending or active) level enrollment per learner and offering.
  await q.addIndex(levelEnrollments, ['offering_id', 'learner_lms_user_id'], {
    unique: true,
    where: { status: ['pending', 'active'] },
    name: 'lms_level_enrollments_open',
  });
  await q.addIndex(levelEnrollments, ['learner_lms_user_id', 'id'], { name: 'lms_level_enrollments_learner_idx' });

  // A checkout attempt pays for a course enrollment or a level enrollment, never both.
  await q.changeColumn(payments, 'enrollment_id', { type: DataTypes.STRING(26), allowNull: true });
  await q.addColumn(payments, 'level_enrollment_id', {
    type: DataTypes.STRING(26),
    allowNull: true,
    references: { model: levelEnrollments, key: 'id' },
    onDelete: 'RESTRICT',
  });
  await q.addConstraint(payments, {
    type: 'unique',
    fields: ['level_enrollment_id', 'attempt'],
    name: 'lms_payments_level_enrollment_attempt_key',
  });
  await q.sequelize.query(
    `ALTER TABLE lms.lms_payments ADD CONSTRAINT lms_payments_kind_reference_check CHECK (
       (kind = 'course' AND enrollment_id IS NOT NULL AND level_enrollment_id IS NULL)
       OR (kind = 'level' AND level_enrollment_id IS NOT NULL AND enrollment_id IS NULL))`,
  );

  await q.createTable(allocationLevels, {
    allocation_id: { ...foreignKey(allocations, { onDelete: 'RESTRICT' }), primaryKey: true, onDelete: 'CASCADE' },
    offering_id: { ...foreignKey(offerings, { onDelete: 'RESTRICT' }), primaryKey: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(allocationLevels);
  await q.sequelize.query('ALTER TABLE lms.lms_payments DROP CONSTRAINT lms_payments_kind_reference_check');
  await q.removeConstraint(payments, 'lms_payments_level_enrollment_attempt_key');
  await q.removeColumn(payments, 'level_enrollment_id');
  await q.changeColumn(payments, 'enrollment_id', { type: DataTypes.STRING(26), allowNull: false });
  await q.dropTable(levelEnrollments);
  await q.dropTable(members);
  await q.dropTable(offerings);
}
