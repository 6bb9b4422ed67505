import type { CentreRole } from '../vocabulary.ts';

/**
 * Which centre roles may add people and change their status: super admins only (enums.md, centre
 * RBAC). Every role may read the staff list.
 */
export const managesStaff: Record<CentreRole, boolean> = {
  super_admin: true,
  regular_admin: false,
  staff: false,
};

/** Orders `GET /centre/staff` can sort by, with the direction used when `order` is not given. */
export const staffSorts = {
  createdAt: 'desc',
  name: 'asc',
  email: 'asc',
} as const satisfies Record<string, 'asc' | 'desc'>;

export type StaffSort = keyof typeof staffSorts;
