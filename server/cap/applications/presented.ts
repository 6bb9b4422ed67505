import { isoTime } from '../../platform/db/iso-time.ts';
import type { JsonObject } from '../../platform/http/merge-patch.ts';
import { catalogueSql } from '../catalogue/index.ts';
import { centresSql } from '../centres/index.ts';
import type { Application } from './models.ts';
import { applicationsSql } from './queries.ts';

/**
 * The Application shape (what `present` makes of model instances) as columns of the applications row
 * `a`, with the names from the other modules' SQL: a page of applications is one statement.
 */
export const presentedColumns = (a: string) => `${a}.id, ${a}.candidate_user_id AS "candidateId",
  ${a}.centre_id AS "centreId", ${a}.awarding_body_id AS "awardingBodyId", ${a}.type, ${a}.status,
  ${a}.current_stage_key AS "currentStageKey", ${isoTime(`${a}.created_at`)} AS "createdAt",
  ${isoTime(`${a}.updated_at`)} AS "updatedAt", ${isoTime(`${a}.submitted_at`)} AS "submittedAt",
  ${a}.sector_id AS "sectorId", ${a}.trade_id AS "tradeId", ${applicationsSql.candidateDetails(a)} AS "candidateDetails",
  ${centresSql.name(`${a}.centre_id`)} AS "centreName", ${catalogueSql.sectorCard(`${a}.sector_id`)} AS sector,
  ${catalogueSql.tradeCard(`${a}.trade_id`)} AS trade`;

export type Card = { id: string; name: string; slug: string } | null;

export interface PresentedRow {
  id: string;
  candidateId: string;
  centreId: string;
  awardingBodyId: string | null;
  type: Application['type'];
  status: Application['status'];
  currentStageKey: string;
  createdAt: string;
  updatedAt: string;
  submittedAt: string | null;
  sectorId: string;
  tradeId: string;
  candidateDetails: unknown;
  centreName: string | null;
  sector: Card;
  trade: Card;
}

/** The Application shape's candidate, from their id and the `candidateDetails` column (applicationsSql). */
export function candidateOf(id: string, candidateDetails: unknown) {
  const details = (candidateDetails ?? {}) as JsonObject;
  const name = { firstName: String(details.firstName ?? ''), lastName: String(details.lastName ?? '') };
  return { id, ...name, name: [name.firstName, name.lastName].filter(Boolean).join(' ') };
}

/** A row of `presentedColumns` as the Application shape. */
export function presentedRow({ candidateDetails, centreName, sector, trade, ...row }: PresentedRow) {
  return {
    ...row,
    candidate: candidateOf(row.candidateId, candidateDetails),
    centre: { id: row.centreId, name: centreName ?? '' },
    sector,
    trade,
  };
}
