import type { Service, ServiceDeps } from '../platform/service.ts';

/** The Orchestrator (OL): accounts, tokens, notifications and the internal gRPC contracts. */
export async function createOrchestrator(_deps: ServiceDeps): Promise<Service> {
  return { name: 'ol', handlers: {} };
}
