import { DataTypes, type QueryInterface } from 'sequelize';
import type { Migration } from '../db/migrations.ts';

/**
 * The event tables of one service's schema: `outbox` (events it produced, until relayed), `inbox`
 * (events its consumers have processed, keyed by consumer and event id) and `dead_letters` (events a
 * consumer gave up on after its retries).
 */
export async function createEventTables(context: QueryInterface, schema: string): Promise<void> {
  await context.createTable(
    { tableName: 'outbox', schema },
    {
      id: { type: DataTypes.STRING(26), primaryKey: true },
      type: { type: DataTypes.STRING(100), allowNull: false },
      occurred_at: { type: DataTypes.DATE, allowNull: false },
      source: { type: DataTypes.STRING(20), allowNull: false },
      data: { type: DataTypes.JSONB, allowNull: false },
      dispatched_at: { type: DataTypes.DATE, allowNull: true },
    },
  );
  await context.addIndex({ tableName: 'outbox', schema }, ['id'], {
    name: 'outbox_undispatched',
    where: { dispatched_at: null },
  });
  await context.createTable(
    { tableName: 'inbox', schema },
    {
      consumer: { type: DataTypes.STRING(200), primaryKey: true },
      event_id: { type: DataTypes.STRING(26), primaryKey: true },
      event_type: { type: DataTypes.STRING(100), allowNull: false },
      processed_at: { type: DataTypes.DATE, allowNull: false },
    },
  );
  await context.createTable(
    { tableName: 'dead_letters', schema },
    {
      consumer: { type: DataTypes.STRING(200), primaryKey: true },
      event_id: { type: DataTypes.STRING(26), primaryKey: true },
      event_type: { type: DataTypes.STRING(100), allowNull: false },
      event: { type: DataTypes.JSONB, allowNull: false },
      error: { type: DataTypes.TEXT, allowNull: false },
      dead_at: { type: DataTypes.DATE, allowNull: false },
    },
  );
}

export async function dropEventTables(context: QueryInterface, schema: string): Promise<void> {
  for (const tableName of ['dead_letters', 'inbox', 'outbox']) await context.dropTable({ tableName, schema });
}

/** The migration that gives a service its event tables (each service's `0001_events.ts`). */
export function eventTablesMigration(schema: string): Migration {
  return {
    up: ({ context }) => createEventTables(context, schema),
    down: ({ context }) => dropEventTables(context, schema),
  };
}

/**
 * `event_workers`: one row per running process that delivers this service's events, renewed every
 * second while it holds deliveries (pg-boss job ids), so that the deliveries of a process that died
 * are found by those still alive (events/leases.ts).
 */
export const eventWorkersMigration = (schema: string): Migration => ({
  up: async ({ context }) => {
    await context.createTable(
      { tableName: 'event_workers', schema },
      {
        process_id: { type: DataTypes.STRING(26), primaryKey: true },
        renewed_at: { type: DataTypes.DATE, allowNull: false },
        jobs: { type: DataTypes.ARRAY(DataTypes.UUID), allowNull: false, defaultValue: [] },
      },
    );
  },
  down: ({ context }) => context.dropTable({ tableName: 'event_workers', schema }),
});
