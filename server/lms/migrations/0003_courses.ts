import { DataTypes, Op, type QueryInterface } from 'sequelize';
import { foreignKey, idColumn, timestampColumns } from '../../platform/db/columns.ts';

const schema = 'lms';
const users = { tableName: 'lms_users', schema };
const courses = { tableName: 'lms_courses', schema };
const courseInstructors = { tableName: 'lms_course_instructors', schema };
const modules = { tableName: 'lms_modules', schema };
const items = { tableName: 'lms_items', schema };
const entitlements = { tableName: 'lms_entitlements', schema };
const enrollments = { tableName: 'lms_enrollments', schema };

/**
 * Courses with their modules and items (authoring, catalogue), course instructors, and what learners
 * hold: entitlements (the right to take a course, one per learner and course whatever its source) and
 * enrollments (taking it).
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(courses, {
    id: idColumn(),
    title: { type: DataTypes.STRING(200), allowNull: false },
    description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    thumbnail_asset_id: { type: DataTypes.STRING(100), allowNull: true },
    status: { type: DataTypes.STRING(16), allowNull: false },
    price_minor_units: { type: DataTypes.BIGINT, allowNull: false },
    currency: { type: DataTypes.STRING(3), allowNull: false },
    sector_id: { type: DataTypes.STRING(64), allowNull: true },
    trade_id: { type: DataTypes.STRING(64), allowNull: true },
    qualification_level_id: { type: DataTypes.STRING(64), allowNull: true },
    unit_id: { type: DataTypes.STRING(64), allowNull: true },
    completion_policy: { type: DataTypes.JSONB, allowNull: false },
    sequencing: { type: DataTypes.JSONB, allowNull: false },
    published_at: { type: DataTypes.DATE, allowNull: true },
    created_by: foreignKey(users, { onDelete: 'RESTRICT' }),
    ...timestampColumns(),
  });
  await q.addConstraint(courses, {
    type: 'check',
    fields: ['status'],
    where: { status: ['draft', 'published', 'archived'] },
    name: 'lms_courses_status_check',
  });
  await q.addConstraint(courses, {
    type: 'check',
    fields: ['price_minor_units'],
    where: { price_minor_units: { [Op.gte]: 0 } },
    name: 'lms_courses_price_check',
  });
  await q.addIndex(courses, ['status', 'id'], { name: 'lms_courses_status_idx' });

  await q.createTable(courseInstructors, {
    id: idColumn(),
    course_id: foreignKey(courses),
    lms_user_id: foreignKey(users),
    role: { type: DataTypes.STRING(16), allowNull: false },
    ...timestampColumns(),
  });
  await q.addConstraint(courseInstructors, {
    type: 'unique',
    fields: ['course_id', 'lms_user_id'],
    name: 'lms_course_instructors_course_user_key',
  });
  await q.addConstraint(courseInstructors, {
    type: 'check',
    fields: ['role'],
    where: { role: ['owner', 'co_instructor'] },
    name: 'lms_course_instructors_role_check',
  });
  await q.addIndex(courseInstructors, ['lms_user_id'], { name: 'lms_course_instructors_user_idx' });

  await q.createTable(modules, {
    id: idColumn(),
    course_id: foreignKey(courses),
    title: { type: DataTypes.STRING(200), allowNull: false },
    position: { type: DataTypes.INTEGER, allowNull: false },
    optional: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    ...timestampColumns(),
  });
  await q.addIndex(modules, ['course_id', 'position'], { name: 'lms_modules_course_idx' });

  await q.createTable(items, {
    id: idColumn(),
    course_id: foreignKey(courses),
    module_id: foreignKey(modules),
    type: { type: DataTypes.STRING(16), allowNull: false },
    title: { type: DataTypes.STRING(200), allowNull: false },
    position: { type: DataTypes.INTEGER, allowNull: false },
    required: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
    body: { type: DataTypes.JSONB, allowNull: true },
    media_asset_id: { type: DataTypes.STRING(100), allowNull: true },
    package_asset_id: { type: DataTypes.STRING(100), allowNull: true },
    sco_href: { type: DataTypes.STRING(500), allowNull: true },
    quiz: { type: DataTypes.JSONB, allowNull: true },
    ...timestampColumns(),
  });
  await q.addConstraint(items, {
    type: 'check',
    fields: ['type'],
    where: { type: ['native_lesson', 'video', 'quiz', 'assignment', 'scorm_package'] },
    name: 'lms_items_type_check',
  });
  await q.addIndex(items, ['module_id', 'position'], { name: 'lms_items_module_idx' });
  await q.addIndex(items, ['course_id'], { name: 'lms_items_course_idx' });

  await q.createTable(entitlements, {
    id: idColumn(),
    course_id: foreignKey(courses, { onDelete: 'RESTRICT' }),
    learner_lms_user_id: foreignKey(users),
    source: { type: DataTypes.STRING(24), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false },
    sponsor_user_id: { type: DataTypes.STRING(64), allowNull: true },
    sponsor_note: { type: DataTypes.STRING(1000), allowNull: true },
    payment_id: { type: DataTypes.STRING(64), allowNull: true },
    cap_application_id: { type: DataTypes.STRING(64), allowNull: true },
    amount_minor_units: { type: DataTypes.BIGINT, allowNull: false },
    currency: { type: DataTypes.STRING(3), allowNull: false },
    price_revision_id: { type: DataTypes.STRING(64), allowNull: true },
    valid_from: { type: DataTypes.DATE, allowNull: true },
    valid_until: { type: DataTypes.DATE, allowNull: true },
    ...timestampColumns(),
  });
  // One entitlement per learner and course: a second grant (a redelivered payment, a seat and a
  // purchase) finds the first instead of adding another.
  await q.addConstraint(entitlements, {
    type: 'unique',
    fields: ['learner_lms_user_id', 'course_id'],
    name: 'lms_entitlements_learner_course_key',
  });
  await q.addConstraint(entitlements, {
    type: 'check',
    fields: ['source'],
    where: {
      source: ['self_pay', 'admin_grant', 'cap_recommendation', 'sponsor', 'level_offering', 'organization_seat'],
    },
    name: 'lms_entitlements_source_check',
  });
  await q.addConstraint(entitlements, {
    type: 'check',
    fields: ['status'],
    where: { status: ['pending', 'active', 'revoked', 'expired'] },
    name: 'lms_entitlements_status_check',
  });
  await q.addIndex(entitlements, ['course_id'], { name: 'lms_entitlements_course_idx' });
  await q.addIndex(entitlements, ['payment_id'], { name: 'lms_entitlements_payment_idx' });

  await q.createTable(enrollments, {
    id: idColumn(),
    course_id: foreignKey(courses, { onDelete: 'RESTRICT' }),
    learner_lms_user_id: foreignKey(users),
    status: { type: DataTypes.STRING(16), allowNull: false },
    percent_complete: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
    entitlement_id: foreignKey(entitlements, { allowNull: true }),
    completed_at: { type: DataTypes.DATE, allowNull: true },
    ...timestampColumns(),
  });
  await q.addConstraint(enrollments, {
    type: 'unique',
    fields: ['learner_lms_user_id', 'course_id'],
    name: 'lms_enrollments_learner_course_key',
  });
  await q.addConstraint(enrollments, {
    type: 'check',
    fields: ['status'],
    where: { status: ['pending', 'active', 'completed', 'expired', 'withdrawn'] },
    name: 'lms_enrollments_status_check',
  });
  await q.addConstraint(enrollments, {
    type: 'check',
    fields: ['percent_complete'],
    where: { percent_complete: { [Op.between]: [0, 100] } },
    name: 'lms_enrollments_percent_check',
  });
  await q.addIndex(enrollments, ['course_id', 'status'], { name: 'lms_enrollments_course_idx' });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(enrollments);
  await q.dropTable(entitlements);
  await q.dropTable(items);
  await q.dropTable(modules);
  await q.dropTable(courseInstructors);
  await q.dropTable(courses);
}
