import { isoTime } from '../../platform/db/iso-time.ts';
import { catalogueSql } from '../catalogue/index.ts';
import { centresSql } from '../centres/index.ts';
import type { Application } from './models.ts';
import { applicationsSql } from './queries.ts';

/**
 * The Application shape (what `present` makes of model instances) as columns of the applications row
 * `a`, for a page of applications in one statement: `presentedAround` adds the names from the other
 * modules' tables.
 */
export const presentedColumns = (a: string) => `${a}.id, ${a}.candidate_user_id AS "candidateId",
  ${a}.centre_id AS "centreId", ${a}.awarding_body_id AS "awardingBodyId", ${a}.type, ${a}.status,
  ${a}.current_stage_key AS "currentStageKey", ${isoTime(`${a}.created_at`)} AS "createdAt",
  ${isoTime(`${a}.updated_at`)} AS "updatedAt", ${isoTime(`${a}.submitted_at`)} AS "submittedAt",
  ${a}.sector_id AS "sectorId", ${a}.trade_id AS "tradeId", ${applicationsSql.candidateCard(a)} AS candidate`;

/**
 * The page `rows` of `presentedColumns` (keysetRows' `around`) with their centre's name, sector and
 * trade, in `orderBy`: joined over the page, each centre, sector and trade is read once (a subquery a
 * row for each was a third of the page statement's time, bench/NOTES.md 2026-11-28).
 */
export const presentedAround = (rows: string, orderBy: string) =>
  `SELECT p.*, c.name AS "centreName", ${catalogueSql.joinedCard('s')} AS sector, ${catalogueSql.joinedCard('t')} AS trade
     FROM ${rows} p ${centresSql.joinCentre('c', 'p."centreId"')} ${catalogueSql.joinSector('s', 'p."sectorId"')}
          ${catalogueSql.joinTrade('t', 'p."tradeId"')}
    ORDER BY ${orderBy}`;

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
  candidate: { id: string; firstName: string; lastName: string; name: string };
  centreName: string | null;
  sector: Card;
  trade: Card;
}

/**
 * A row of `presentedColumns` as the Application shape. Its fields are written out: spreading the
 * row into the reply cost a page of applications a large share of its time (bench/NOTES.md, 2026-11-28).
 */
export function presentedRow(row: PresentedRow) {
  return {
    id: row.id,
    candidateId: row.candidateId,
    centreId: row.centreId,
    awardingBodyId: row.awardingBodyId,
    type: row.type,
    status: row.status,
    currentStageKey: row.currentStageKey,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    submittedAt: row.submittedAt,
    sectorId: row.sectorId,
    tradeId: row.tradeId,
    candidate: row.candidate,
    centre: { id: row.centreId, name: row.centreName ?? '' },
    sector: row.sector,
    trade: row.trade,
  };
}
