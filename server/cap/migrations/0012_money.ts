import { DataTypes, type QueryInterface } from 'sequelize';

const schema = 'cap';
const table = (tableName: string) => ({ tableName, schema });
const id = { type: DataTypes.STRING(26), primaryKey: true, allowNull: false };
const centre = { type: DataTypes.STRING(26), allowNull: false, references: { model: table('centres'), key: 'id' } };

/**
 * Money in CAP: centre prices (effective-dated, every change kept), the payments of applications (one
 * row per attempt, with the Orchestrator's payment id), and the centre wallet as a ledger of entries:
 * the balance is their sum, never a stored number. Amounts are integer minor units.
 */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.createTable(table('centre_prices'), {
    id,
    centre_id: centre,
    application_type: { type: DataTypes.STRING(8), allowNull: false },
    amount_minor: { type: DataTypes.BIGINT, allowNull: false },
    currency: { type: DataTypes.STRING(3), allowNull: false },
    effective_from: { type: DataTypes.DATE, allowNull: false },
    set_by: { type: DataTypes.STRING(26), allowNull: false },
  });
  await q.addIndex(table('centre_prices'), ['centre_id', 'application_type', 'effective_from'], {
    name: 'centre_prices_current',
  });
  await q.createTable(table('application_payments'), {
    id,
    application_id: {
      type: DataTypes.STRING(26),
      allowNull: false,
      references: { model: table('applications'), key: 'id' },
    },
    centre_id: centre,
    attempt: { type: DataTypes.INTEGER, allowNull: false },
    payment_id: { type: DataTypes.STRING(40), allowNull: false, unique: true },
    reference: { type: DataTypes.STRING(64), allowNull: false },
    checkout_url: { type: DataTypes.TEXT, allowNull: false },
    amount_minor: { type: DataTypes.BIGINT, allowNull: false },
    currency: { type: DataTypes.STRING(3), allowNull: false },
    // centre | platform_floor: where the amount came from.
    price_source: { type: DataTypes.STRING(16), allowNull: false },
    status: { type: DataTypes.STRING(16), allowNull: false },
    provider: { type: DataTypes.STRING(32), allowNull: true },
    initiated_at: { type: DataTypes.DATE, allowNull: false },
    paid_at: { type: DataTypes.DATE, allowNull: true },
  });
  await q.addIndex(table('application_payments'), ['application_id', 'attempt'], {
    name: 'application_payments_attempt',
    unique: true,
  });
  await q.addIndex(table('application_payments'), ['centre_id', 'initiated_at'], {
    name: 'application_payments_centre',
  });
  await q.createTable(table('wallet_entries'), {
    id,
    centre_id: centre,
    // application_payment (+gross), platform_fee (-fee), withdrawal (-amount)
    kind: { type: DataTypes.STRING(24), allowNull: false },
    amount_minor: { type: DataTypes.BIGINT, allowNull: false },
    currency: { type: DataTypes.STRING(3), allowNull: false },
    payment_id: { type: DataTypes.STRING(40), allowNull: true },
    application_id: { type: DataTypes.STRING(26), allowNull: true },
    created_by: { type: DataTypes.STRING(26), allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
  });
  await q.addIndex(table('wallet_entries'), ['centre_id', 'created_at'], { name: 'wallet_entries_centre' });
  // A payment credits a wallet once, and its fee is taken once, whatever the redeliveries.
  await q.sequelize.query(
    `CREATE UNIQUE INDEX wallet_entries_once ON cap.wallet_entries (payment_id, kind) WHERE payment_id IS NOT NULL`,
  );
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  for (const name of ['wallet_entries', 'application_payments', 'centre_prices']) await q.dropTable(table(name));
}
