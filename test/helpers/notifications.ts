import { newId } from '../../server/platform/ids.ts';
import { call, eventually, sql, type TestPlatform } from './platform.ts';

/**
 * Publishes `notification.requested` the way CAP does (a row in CAP's outbox, relayed by the bus), so
 * a test drives the Orchestrator's send path exactly as another service would.
 */
export async function requestNotificationAsCap(platform: TestPlatform, data: Record<string, unknown>): Promise<string> {
  const id = newId();
  await sql(
    platform,
    `INSERT INTO cap.outbox (id, type, occurred_at, source, data) VALUES ($1, 'notification.requested', now(), 'cap', $2)`,
    [id, JSON.stringify(data)],
  );
  return id;
}

/** The caller's inbox, once it holds at least `count` notifications. */
export async function inboxOf(platform: TestPlatform, token: string, count: number, query = ''): Promise<any[]> {
  let items: any[] = [];
  await eventually(`${count} notifications reach the inbox`, async () => {
    const res = await call('GET', platform.url(`/v1/ol/notifications${query}`), { token });
    items = res.body.data;
    return items.length >= count;
  });
  return items;
}
