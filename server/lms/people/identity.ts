import { callUnary } from '../../platform/grpc/client.ts';
import type { ProvisionAccountRequest, ProvisionAccountResponse } from '../../contracts/identity-messages.ts';
import { serviceNames } from '../../platform/grpc/proto.ts';

// The LMS's client of orchestrator.v1.IdentityService: ProvisionAccount gets (or creates, with a mailed
// password) the Orchestrator account of an address staff invite or seat. The address is read per call:
// in one process the Orchestrator's listener is known only once it is up.

export function createIdentityClient(address: () => string, serviceKey: string) {
  return {
    provisionAccount: (
      request: Pick<ProvisionAccountRequest, 'email' | 'intents'> & Partial<ProvisionAccountRequest>,
    ) =>
      callUnary<ProvisionAccountResponse>(address(), serviceKey, `${serviceNames.identity}.ProvisionAccount`, request),
  };
}

export type IdentityClient = ReturnType<typeof createIdentityClient>;
