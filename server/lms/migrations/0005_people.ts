import { DataTypes, type QueryInterface } from 'sequelize';
import { foreignKey, idColumn, timestampColumns } from '../../platform/db/columns.ts';

const schema = 'lms';
const users = { tableName: 'lms_users', schema };
const courses = { tableName: 'lms_courses', schema };
const invites = { tableName: 'lms_invites', schema };
const staffMembers = { tableName: 'lms_staff_members', schema };
const organizations = { tableName: 'lms_organizations', schema };
const seatAllocations = { tableName: 'lms_seat_allocations', schema };
const seatAllocationCourses = { tableName: 'lms_seat_allocation_courses', schema };
const seats = { tableName: 'lms_seats', schema };
const settings = { tableName: 'lms_settings', schema };

/**
 * The people around the courses: instructor and staff invites, staff memberships with their role,
 * a learner's LMS-only suspension, sponsoring organisations with their seat allocations, and the
 * platform settings (one row).
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.addColumn(users, 'learner_status', { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' });
  await q.addConstraint(users, {
    type: 'check',
    fields: ['learner_status'],
    where: { learner_status: ['active', 'suspended'] },
    name: 'lms_users_learner_status_check',
  });

  await q.createTable(invites, {
    id: idColumn(),
    kind: { type: DataTypes.STRING(16), allowNull: false },
    email: { type: DataTypes.STRING(320), allowNull: false },
    staff_role: { type: DataTypes.STRING(24), allowNull: true },
    status: { type: DataTypes.STRING(16), allowNull: false },
    invited_by: foreignKey(users, { allowNull: true }),
    accepted_by: foreignKey(users, { allowNull: true }),
    accepted_at: { type: DataTypes.DATE, allowNull: true },
    ...timestampColumns(),
  });
  await q.addConstraint(invites, {
    type: 'check',
    fields: ['kind'],
    where: { kind: ['instructor', 'staff'] },
    name: 'lms_invites_kind_check',
  });
  await q.addConstraint(invites, {
    type: 'check',
    fields: ['status'],
    where: { status: ['pending', 'accepted', 'revoked', 'expired'] },
    name: 'lms_invites_status_check',
  });
  // At most one pending invite per kind and address, also when two staff invite at once.
  await q.addIndex(invites, ['kind', 'email'], {
    unique: true,
    where: { status: 'pending' },
    name: 'lms_invites_pending_key',
  });

  await q.createTable(staffMembers, {
    id: idColumn(),
    lms_user_id: { ...foreignKey(users), unique: true },
    role: { type: DataTypes.STRING(24), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false },
    ...timestampColumns(),
  });
  await q.addConstraint(staffMembers, {
    type: 'check',
    fields: ['role'],
    where: { role: ['admin', 'content_manager', 'support'] },
    name: 'lms_staff_members_role_check',
  });
  await q.addConstraint(staffMembers, {
    type: 'check',
    fields: ['status'],
    where: { status: ['active', 'suspended'] },
    name: 'lms_staff_members_status_check',
  });

  await q.createTable(organizations, {
    id: idColumn(),
    name: { type: DataTypes.STRING(200), allowNull: false },
    email: { type: DataTypes.STRING(320), allowNull: false },
    description: { type: DataTypes.STRING(2000), allowNull: true },
    status: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'active' },
    ...timestampColumns(),
  });

  await q.createTable(seatAllocations, {
    id: idColumn(),
    organization_id: foreignKey(organizations),
    total_slots: { type: DataTypes.INTEGER, allowNull: false },
    created_by: foreignKey(users, { allowNull: true }),
    ...timestampColumns(),
  });
  await q.createTable(seatAllocationCourses, {
    id: idColumn(),
    allocation_id: foreignKey(seatAllocations),
    course_id: { ...foreignKey(courses), onDelete: 'RESTRICT' },
    ...timestampColumns(),
  });
  await q.addConstraint(seatAllocationCourses, {
    type: 'unique',
    fields: ['allocation_id', 'course_id'],
    name: 'lms_seat_allocation_courses_key',
  });
  await q.createTable(seats, {
    id: idColumn(),
    allocation_id: foreignKey(seatAllocations),
    lms_user_id: foreignKey(users),
    ...timestampColumns(),
  });
  // A learner takes one seat of an allocation, however often they are listed.
  await q.addConstraint(seats, {
    type: 'unique',
    fields: ['allocation_id', 'lms_user_id'],
    name: 'lms_seats_allocation_user_key',
  });

  await q.createTable(settings, {
    id: { type: DataTypes.STRING(16), primaryKey: true },
    data: { type: DataTypes.JSONB, allowNull: false },
    ...timestampColumns(),
  });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.dropTable(settings);
  await q.dropTable(seats);
  await q.dropTable(seatAllocationCourses);
  await q.dropTable(seatAllocations);
  await q.dropTable(organizations);
  await q.dropTable(staffMembers);
  await q.dropTable(invites);
  await q.removeColumn(users, 'learner_status');
}
