import { AsyncLocalStorage } from 'node:async_hooks';

/** What the platform counts about the HTTP request being served, wherever the work happens. */
export interface RequestScope {
  /** SQL statements sent to the database on behalf of this request. */
  queries: number;
}

const storage = new AsyncLocalStorage<RequestScope>();

/** Runs `work` (and everything it starts) inside a new request scope. */
export function withRequestScope<T>(work: () => T): T {
  return storage.run({ queries: 0 }, work);
}

/** The scope of the request being served, or undefined outside one (events, start-up). */
export function requestScope(): RequestScope | undefined {
  return storage.getStore();
}
