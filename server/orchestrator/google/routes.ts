import type { operations } from '../../contracts/openapi/ol.ts';
import type { Handlers } from '../../platform/http/operations.ts';
import { ok, raw } from '../../platform/http/reply.ts';
import type { GoogleSandbox } from './sandbox.ts';

export function googleSandboxRoutes(sandbox: GoogleSandbox): Handlers<operations> {
  return {
    getGoogleSandboxJwks: async () => raw(JSON.stringify(await sandbox.jwks()), 'application/json'),
    mintGoogleSandboxIdToken: async (call) => ok({ idToken: await sandbox.mintIdToken(call.body) }),
  };
}
