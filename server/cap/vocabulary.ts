/** CAP's wire vocabularies (the real client's values, ../shared/reference/cap-web-client/enums.md). */
export const personas = ['candidate', 'centre', 'assessor', 'awarding_body'] as const;
export type Persona = (typeof personas)[number];

export const centreRoles = ['super_admin', 'regular_admin', 'staff'] as const;
export type CentreRole = (typeof centreRoles)[number];

export type CentreStaffStatus = 'pending' | 'active' | 'inactive';
/** What platform admins moderate (centres, assessor profiles) goes through these (moderation/lifecycle.ts). */
export type ModerationStatus = 'pending' | 'approved' | 'suspended' | 'rejected';
export type CentreStatus = ModerationStatus;
export type UserStatus = 'active' | 'deactivated';

export const applicationTypes = ['RPL', 'NSQ'] as const;
export type ApplicationType = (typeof applicationTypes)[number];
export type OnboardingStatus = 'draft' | 'completed';
