import type { operations } from '../../contracts/openapi/ol.ts';
import type { Handlers } from '../../platform/http/operations.ts';
import { raw } from '../../platform/http/reply.ts';
import type { SigningKeys } from './keys.ts';

export function tokenRoutes(keys: SigningKeys): Handlers<operations> {
  return {
    // A bare JWK Set, not the envelope: JOSE libraries read it as it is.
    getJwks: async () =>
      raw(JSON.stringify((await keys.current()).jwks), 'application/json', { 'Cache-Control': 'public, max-age=300' }),
  };
}
