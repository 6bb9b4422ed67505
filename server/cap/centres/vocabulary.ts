import type { ModerationStatus } from '../people/index.ts';

/** The centres module's wire vocabularies (the real client's values, ../shared/reference/cap-web-client/enums.md). */
export const centreRoles = ['super_admin', 'regular_admin', 'staff'] as const;
export type CentreRole = (typeof centreRoles)[number];

export type CentreStaffStatus = 'pending' | 'active' | 'inactive';
/** A centre is moderated by platform admins (the people module's moderation lifecycle). */
export type CentreStatus = ModerationStatus;
