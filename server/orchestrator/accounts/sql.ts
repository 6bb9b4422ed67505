/**
 * SQL of the accounts module's tables for a statement of another Orchestrator module that has to stay
 * one statement (a page read with the names it shows), as CAP's and the LMS's modules share theirs.
 */
export const accountsSql = {
  /** The email of the user whose id is the SQL expression `userId`, or null. */
  email: (userId: string) => `(SELECT u.email FROM ol.users u WHERE u.id = ${userId})`,
  /** A LEFT JOIN of the user whose id is the SQL expression `userId`, as `alias` (`alias.email`: null without one). */
  joinUser: (alias: string, userId: string) => `LEFT JOIN ol.users ${alias} ON ${alias}.id = ${userId}`,
};
