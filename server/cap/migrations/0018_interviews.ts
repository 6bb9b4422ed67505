import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'cap';
const table = (tableName: string) => ({ tableName, schema });
const id = { type: DataTypes.STRING(26), primaryKey: true, allowNull: false };
const ref = (to: string, onDelete = 'RESTRICT', allowNull = false) => ({
  type: DataTypes.STRING(26),
  allowNull,
  references: { model: table(to), key: 'id' },
  onDelete,
});
const at = (allowNull = false) => ({ type: DataTypes.DATE, allowNull });
const text = (length: number, allowNull = true) => ({ type: DataTypes.STRING(length), allowNull });
const sitting = {
  mode: text(16),
  location: text(500),
  link: text(1000),
  use_centre_address: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
};

/**
 * Interviews (interviews/service.ts). Who sits on a panel is `application_assessors` (roles
 * panel_voter, with one lead, and iv_observer); these tables hold the rest:
 * - `centre_panels` and `interview_templates`: a centre's reusable panels and interview templates (a
 *   panel, a clock and a place); scheduling copies them onto applications, frozen per application.
 * - `application_interviews`: one per application: its sitting (schedule), the template it came from,
 *   the lead's decision, the round (a reopened interview starts a new round of evaluations) and the
 *   closing of gap training.
 * - `interview_forms`: the four forms per application, written by the lead, signed by the candidate.
 * - `interview_evaluations`: each voter's evaluation, once per round.
 * - `appeals`: the candidate's appeal of a rejection; at most one open per application.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(table('centre_panels'), {
    id,
    centre_id: ref('centres', 'CASCADE'),
    name: text(200, false),
    members: { type: DataTypes.JSONB, allowNull: false },
    created_by: text(26, false),
    created_at: at(),
    updated_at: at(),
  });
  await q.addIndex(table('centre_panels'), ['centre_id', 'id'], { name: 'centre_panels_centre' });
  await q.createTable(table('interview_templates'), {
    id,
    centre_id: ref('centres', 'CASCADE'),
    panel_id: ref('centre_panels'),
    title: text(200, false),
    scheduled_at: at(),
    ...sitting,
    created_by: text(26, false),
    created_at: at(),
    updated_at: at(),
  });
  await q.addIndex(table('interview_templates'), ['centre_id', 'scheduled_at'], {
    name: 'interview_templates_centre_clock',
  });
  await q.createTable(table('application_interviews'), {
    id,
    application_id: { ...ref('applications', 'CASCADE'), unique: true },
    centre_id: ref('centres'),
    template_id: ref('interview_templates', 'SET NULL', true),
    scheduled_at: at(true),
    ...sitting,
    status: text(16, false),
    round: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
    decision: text(24),
    decided_by: text(26),
    decided_at: at(true),
    gap_training_closed_at: at(true),
    created_at: at(),
    updated_at: at(),
  });
  await q.addIndex(table('application_interviews'), ['centre_id', 'scheduled_at'], {
    name: 'application_interviews_diary',
  });
  await q.sequelize.query(
    `ALTER TABLE cap.application_interviews ADD CONSTRAINT application_interviews_status CHECK (status IN ('scheduled', 'completed', 'cancelled'))`,
  );
  await q.sequelize.query(
    `ALTER TABLE cap.application_interviews ADD CONSTRAINT application_interviews_decision CHECK (decision IN ('competent', 'not_yet_competent'))`,
  );
  await q.createTable(table('interview_forms'), {
    id,
    application_id: ref('applications', 'CASCADE'),
    form_type: text(32, false),
    data: { type: DataTypes.JSONB, allowNull: false },
    status: text(16, false),
    populated_by: text(26, false),
    candidate_signature_asset_id: text(64),
    candidate_signed_at: at(true),
    signature_mode: text(16),
    typed_signature_name: text(200),
    created_at: at(),
    updated_at: at(),
  });
  await q.addIndex(table('interview_forms'), ['application_id', 'form_type'], {
    name: 'interview_forms_one_per_type',
    unique: true,
  });
  await q.createTable(table('interview_evaluations'), {
    id,
    application_id: ref('applications', 'CASCADE'),
    round: { type: DataTypes.INTEGER, allowNull: false },
    assessor_id: ref('assessor_profiles'),
    feedback: { type: DataTypes.TEXT, allowNull: false },
    signature_asset_id: text(64, false),
    created_at: at(),
  });
  await q.addIndex(table('interview_evaluations'), ['application_id', 'round', 'assessor_id'], {
    name: 'interview_evaluations_once',
    unique: true,
  });
  await q.createTable(table('appeals'), {
    id,
    application_id: ref('applications', 'CASCADE'),
    stage_key: text(40, false),
    status: text(24, false),
    comment: { type: DataTypes.TEXT, allowNull: false },
    raised_by: text(26, false),
    resolution_comment: { type: DataTypes.TEXT, allowNull: true },
    resolved_by: text(26),
    resolved_at: at(true),
    created_at: at(),
  });
  await q.sequelize.query(`CREATE UNIQUE INDEX appeals_one_open ON cap.appeals (application_id) WHERE status = 'open'`);
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  for (const name of [
    'appeals',
    'interview_evaluations',
    'interview_forms',
    'application_interviews',
    'interview_templates',
    'centre_panels',
  ])
    await q.dropTable(table(name));
}
