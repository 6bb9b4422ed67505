import type { Service, ServiceDeps } from '../platform/service.ts';

/** CAP: the accreditation portal. */
export async function createCap(_deps: ServiceDeps): Promise<Service> {
  return { name: 'cap', handlers: {} };
}
