/** Everything a platform role can allow. `/admin/*` operations each require one of these. */
export const permissions = [
  'platform.centres.read',
  'platform.centres.write',
  'platform.assessors.read',
  'platform.assessors.write',
  'platform.pricing.read',
  'platform.config.write',
  'platform.policies.write',
  'platform.awarding_bodies.write',
  'platform.catalogue.read',
  'platform.catalogue.write',
  'platform.dashboard.read',
  'platform.templates.write',
  'platform.accounts.read',
] as const;
export type Permission = (typeof permissions)[number];

/** Platform roles and what each allows. A user's permissions are the union over their grants. */
export const platformRoles = {
  platform_admin: [...permissions],
  platform_finance: ['platform.pricing.read'],
} as const satisfies Record<string, readonly Permission[]>;

export type PlatformRole = keyof typeof platformRoles;

export const isPlatformRole = (role: string): role is PlatformRole => Object.hasOwn(platformRoles, role);
