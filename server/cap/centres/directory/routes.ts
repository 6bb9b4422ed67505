import type { operations } from '../../../contracts/openapi/cap.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { ok } from '../../../platform/http/reply.ts';
import type { ActingContexts } from '../../people/index.ts';
import type { Directory } from './service.ts';

export function directoryRoutes(contexts: ActingContexts, directory: Directory): Handlers<operations> {
  return {
    searchDirectory: contexts.centre(async (call, context) => {
      const { items, meta } = await directory.search(context, call.query);
      return ok(items, { ...meta });
    }),
  };
}
