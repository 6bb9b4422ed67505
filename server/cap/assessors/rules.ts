import { AppError, forbidden, notFound } from '../../platform/http/errors.ts';
import type { CentreContext } from '../people/index.ts';
import type { CentreRole } from '../centres/index.ts';

/**
 * Which centre roles decide about assessors and jobs (approve, reject and revoke retained requests;
 * post, close and delete job postings; shortlist and reject applicants): super and regular admins, not
 * staff (enums.md, centre RBAC). Every role may read them.
 */
export const decidesOnAssessors: Record<CentreRole, boolean> = {
  super_admin: true,
  regular_admin: true,
  staff: false,
};

export function mustDecide(context: CentreContext, what: string): void {
  if (!decidesOnAssessors[context.role])
    throw forbidden('centre.role_forbidden', `Only a super admin or regular admin of the centre can ${what}.`);
}

/** A row of the caller's centre: 404 when there is none, 403 `auth.out_of_scope` when it is another centre's. */
export function ofCentre<Row extends { centreId: string }>(
  row: Row | null,
  context: CentreContext,
  noun: string,
  id: string,
): Row {
  if (!row) throw notFound(`No ${noun} has the id ${id}.`);
  if (row.centreId !== context.centreId)
    throw forbidden('auth.out_of_scope', `That ${noun} belongs to another centre.`);
  return row;
}

/**
 * A bulk change, all or nothing: every id is checked (`problem` says why one cannot change), and if
 * any cannot, a 409 `code` names each of them (`ids[i]`) and nothing changes. Otherwise `apply` runs
 * for each, in the order given. Run it inside the transaction that locked the rows.
 */
export async function allOrNothing<Row extends { id: string }>(
  ids: string[],
  found: Row[],
  code: string,
  rules: { problem(row: Row | undefined, id: string): string | undefined; apply(row: Row): Promise<unknown> },
): Promise<Row[]> {
  const seen = new Set<string>();
  const problems: Array<{ field: string; issue: string }> = [];
  const rows: Row[] = [];
  for (const [i, id] of ids.entries()) {
    if (seen.has(id)) continue;
    seen.add(id);
    const row = found.find((r) => r.id === id);
    const issue = rules.problem(row, id);
    if (issue) problems.push({ field: `ids[${i}]`, issue });
    else rows.push(row!);
  }
  if (problems.length) {
    throw new AppError(
      409,
      code,
      `Nothing was changed: ${problems.length} of the ${seen.size} cannot change.`,
      problems,
    );
  }
  for (const row of rows) await rules.apply(row);
  return rows;
}

/** An assessor's workload from the statuses of the applications they are assigned to (each once). */
export function countWorkload(statuses: Array<string | undefined>) {
  const known = statuses.filter((status): status is string => status !== undefined);
  return {
    assigned: known.length,
    ongoing: known.filter((status) => ['draft', 'in_progress'].includes(status)).length,
    completed: known.filter((status) => ['certified', 'rejected', 'withdrawn'].includes(status)).length,
  };
}
