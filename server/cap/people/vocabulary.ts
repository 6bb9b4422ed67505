/** The people module's wire vocabularies (the real client's values, ../shared/reference/cap-web-client/enums.md). */
export const personas = ['candidate', 'centre', 'assessor', 'awarding_body'] as const;
export type Persona = (typeof personas)[number];

export type UserStatus = 'active' | 'deactivated';
export type OnboardingStatus = 'draft' | 'completed';

/** What platform admins moderate (centres, assessor profiles) goes through these (moderation/lifecycle.ts). */
export type ModerationStatus = 'pending' | 'approved' | 'suspended' | 'rejected';
