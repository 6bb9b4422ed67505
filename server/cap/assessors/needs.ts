import type { AssessorViewer, ListQuery, Viewer } from '../applications/index.ts';

/**
 * What the assessors module needs of the applications module, above it (read when a call needs it):
 * the applications an assessor works on, as lists and by state.
 */
export interface ApplicationsOfAssessors {
  /** The applications list, as the viewer reads it (for an assessor: those assigned to them now). */
  list(viewer: Viewer | AssessorViewer, query: ListQuery): Promise<{ items: Array<{ id: string }>; meta: object }>;
  /** The applications among `ids` as the Application shape shows them. */
  presentByIds(ids: string[]): Promise<Array<{ id: string }>>;
  /** Where each of the applications among `ids` is, by id. */
  statesOf(ids: string[]): Promise<Map<string, { status: string; currentStageKey: string }>>;
}
