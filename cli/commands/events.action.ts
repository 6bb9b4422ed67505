/** The work of `capctl events tail` (events.ts defines the command). */
import { Agent } from 'undici';
import { exitCodes, UnreachableError, UsageError } from '../output.ts';
import { isSuccess, send, type HttpResponse } from '../scenarios/http.ts';
import { sleep } from '../scenarios/duration.ts';
import { resolveBaseUrl } from '../session.ts';
import { eventServices } from '../options.ts';

export interface TailOptions {
  baseUrl?: string;
  service: string[];
  type: string[];
  forwardTo?: string;
  interval: number;
  json?: boolean;
}

interface PublishedEvent {
  id: string;
  type: string;
  occurredAt: string;
  source: string;
  data: unknown;
}

export interface TailOutput {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Ends the tail (default: SIGINT or SIGTERM to this process). */
  stop?: AbortSignal;
}

/**
 * Polls each service's dev events (newest 200) and prints those it has not seen, oldest first. What
 * was published before it started is not printed. Resolves to the exit code when stopped.
 */
export async function tailEvents(options: TailOptions, output: TailOutput = process): Promise<number> {
  const services = options.service.length > 0 ? options.service : [...eventServices];
  for (const service of services) {
    if (!(eventServices as readonly string[]).includes(service))
      throw new UsageError(`--service ${service}: expected one of ${eventServices.join(', ')}`);
  }
  const forwardTo = options.forwardTo === undefined ? undefined : checkedUrl(options.forwardTo);
  const baseUrl = resolveBaseUrl(options.baseUrl);
  const stop = output.stop ?? processStop();
  const dispatcher = new Agent({ connect: { timeout: 5_000 } });
  /** The ids of each service's last answer: an event is new when it was not in it. */
  const seen = new Map<string, Set<string>>();
  try {
    for (const service of services)
      seen.set(service, new Set((await fetchEvents(baseUrl, service, options.type, dispatcher)).map((e) => e.id)));
    output.stderr.write(
      `tailing the events of ${services.join(', ')} at ${baseUrl}${forwardTo ? `, forwarding to ${forwardTo}` : ''}; Ctrl-C to stop\n`,
    );
    while (!stop.aborted) {
      await sleep(options.interval, stop);
      if (stop.aborted) break;
      const fresh: PublishedEvent[] = [];
      for (const service of services) {
        const events = await fetchEvents(baseUrl, service, options.type, dispatcher);
        const before = seen.get(service)!;
        fresh.push(...events.filter((e) => !before.has(e.id)));
        seen.set(service, new Set(events.map((e) => e.id)));
      }
      fresh.sort((a, b) => a.occurredAt.localeCompare(b.occurredAt) || a.id.localeCompare(b.id));
      for (const event of fresh) {
        const forwarded = forwardTo ? await forward(forwardTo, event, dispatcher) : undefined;
        output.stdout.write(
          `${options.json ? JSON.stringify(forwarded ? { ...event, forwarded } : event) : line(event, forwarded)}\n`,
        );
      }
    }
    return exitCodes.ok;
  } catch (err) {
    if (err instanceof UnreachableError || err instanceof DevEventsOff) {
      output.stderr.write(`capctl events tail: ${err.message}\n`);
      return err instanceof DevEventsOff ? exitCodes.failed : exitCodes.unreachable;
    }
    throw err;
  } finally {
    await dispatcher.close();
  }
}

class DevEventsOff extends Error {}

async function fetchEvents(
  baseUrl: string,
  service: string,
  types: string[],
  dispatcher: Agent,
): Promise<PublishedEvent[]> {
  // One type is filtered by the platform; several are filtered here.
  const query = new URLSearchParams({ limit: '200', ...(types.length === 1 ? { type: types[0]! } : {}) });
  const res: HttpResponse = await send(
    { method: 'GET', url: `${baseUrl}/v1/${service}/dev/events?${query}`, headers: { accept: 'application/json' } },
    dispatcher,
  );
  if (res.status === 404)
    throw new DevEventsOff(
      `${baseUrl}/v1/${service}/dev/events answered 404: the platform keeps dev events in development mode only`,
    );
  if (!isSuccess(res.status)) throw new UnreachableError(`${baseUrl}/v1/${service}/dev/events answered ${res.status}`);
  const events = (res.body as { data?: PublishedEvent[] })?.data ?? [];
  return types.length > 1 ? events.filter((e) => types.includes(e.type)) : events;
}

/** Posts the envelope; the answer's status, or why there was none. */
async function forward(
  url: string,
  event: PublishedEvent,
  dispatcher: Agent,
): Promise<{ status?: number; error?: string }> {
  try {
    const res = await send(
      {
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', 'x-cap-event-id': event.id, 'x-cap-event-type': event.type },
        body: event,
      },
      dispatcher,
    );
    return { status: res.status };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

function line(event: PublishedEvent, forwarded: { status?: number; error?: string } | undefined): string {
  const sent = forwarded ? `  -> ${forwarded.status ?? `not delivered: ${forwarded.error}`}` : '';
  return `${event.occurredAt}  ${event.source.padEnd(3)}  ${event.type}  ${event.id}  ${JSON.stringify(event.data)}${sent}`;
}

function checkedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return url;
  } catch {
    // below
  }
  throw new UsageError(`--forward-to ${url}: expected an http:// or https:// URL`);
}

/** Aborted by the first SIGINT or SIGTERM. */
function processStop(): AbortSignal {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return controller.signal;
}
