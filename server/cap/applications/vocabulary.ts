/** The applications module's wire vocabularies (the real client's values, ../shared/reference/cap-web-client/enums.md). */
export const applicationTypes = ['RPL', 'NSQ'] as const;
export type ApplicationType = (typeof applicationTypes)[number];
