import { QueryTypes, type Sequelize } from 'sequelize';
import { notFound } from '../http/errors.ts';
import type { Handler } from '../http/operations.ts';
import { ok } from '../http/reply.ts';

/**
 * `GET /dev/events` (development mode only): the newest events a service published, from its outbox,
 * for tools that wait for one (the scenario runner's `event` steps). Never in production: event data
 * is the platform's own business.
 */
export function devEventsHandler(sequelize: Sequelize, schema: string, devMode: boolean): Handler {
  return async (call) => {
    if (!devMode) throw notFound('Dev events exist only in development mode.');
    const rows = await sequelize.query<{ id: string; type: string; occurred_at: Date; source: string; data: unknown }>(
      `SELECT id, type, occurred_at, source, data FROM "${schema}".outbox WHERE ($1::text IS NULL OR type = $1) ORDER BY id DESC LIMIT $2`,
      { type: QueryTypes.SELECT, bind: [call.query.type ?? null, call.query.limit ?? 50] },
    );
    return ok(
      rows.map((row) => ({
        id: row.id,
        type: row.type,
        occurredAt: row.occurred_at.toISOString(),
        source: row.source,
        data: row.data,
      })),
    );
  };
}
