import { eventWorkersMigration } from '../../platform/events/tables.ts';

export const { up, down } = eventWorkersMigration('lms');
