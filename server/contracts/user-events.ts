import type { PlatformEvent } from '../platform/events/types.ts';

// The data of `user.created` and `user.deleted`, the Orchestrator's account events (pinned by the message
// pacts): who the account is, and for a new one which platforms it signed up for.

export interface UserEventData {
  userId: string;
  email?: string;
  /** The platforms a new account is for (`cap`, `lms`); absent on older events and on `user.deleted`. */
  intents?: string[];
}

/** Reads `user.created` / `user.deleted` data as a consumer must; throws when the event carries no user id. */
export function readUserEvent(event: PlatformEvent): UserEventData {
  const { userId, email, intents } = event.data as { userId?: unknown; email?: unknown; intents?: unknown };
  if (typeof userId !== 'string') throw new Error(`${event.type} event ${event.id} carries no userId`);
  return {
    userId,
    email: typeof email === 'string' ? email : undefined,
    intents: Array.isArray(intents) ? intents.map(String) : undefined,
  };
}
