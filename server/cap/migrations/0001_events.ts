import { eventTablesMigration } from '../../platform/events/tables.ts';

export const { up, down } = eventTablesMigration('cap');
