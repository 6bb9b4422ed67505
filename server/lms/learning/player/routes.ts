import type { Request } from 'express';
import type { PlatformConfig } from '../../../platform/config.ts';
import type { operations } from '../../../contracts/openapi/lms.ts';
import type { Call, SecurityHandler, Handlers } from '../../../platform/http/operations.ts';
import { ok, raw, streamed, type Reply } from '../../../platform/http/reply.ts';
import type { Users } from '../../people/index.ts';
import { playerPage } from './page.ts';
import type { Player } from './service.ts';

const tokenCookie = 'lms_scorm_ct';
const tokenHeader = 'x-elimi-scorm-token';

/** The API's base URL as this request reached it (scheme, host and the service's prefix). */
export const baseUrlOf = (req: Request) => `${req.protocol}://${req.get('host')}${req.baseUrl}`;

function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return decodeURIComponent(part.slice(at + 1).trim());
  }
  return undefined;
}

/** The content token a request presents: `ct` in the query, the cookie, or the header. */
const presentedToken = (call: Call): string | undefined =>
  (typeof call.query.ct === 'string' && call.query.ct) ||
  cookie(call.req, tokenCookie) ||
  (call.req.get(tokenHeader) ?? undefined) ||
  undefined;

/** The `scormContentToken` security scheme: a valid content token opens its own session only. */
export function scormContentTokenAuth(player: Player): SecurityHandler {
  return async (call) => {
    const token = presentedToken(call);
    const found = token ? await player.sessionOfToken(token) : undefined;
    if (!found) throw player.unauthenticated();
    // The token itself goes with the session: the player page keeps the one it was opened with (`ct` is
    // the scheme's, not a documented parameter, so the handler's query no longer holds it).
    call.principal = { kind: 'user', userId: found.userId, claims: { scormSessionId: found.sessionId, token } };
  };
}

/**
 * Who may frame the player and the package: this origin and the browser origins allowed to call
 * the API (CORS_ORIGINS; in development with none set, any local origin).
 */
function frameAncestors(config: PlatformConfig): string {
  if (config.corsOrigins.includes('*')) return '*';
  if (config.corsOrigins.length) return ["'self'", ...config.corsOrigins].join(' ');
  return config.devMode ? "'self' http://localhost:* http://127.0.0.1:* http://[::1]:*" : "'self'";
}

export function playerRoutes(player: Player, users: Users, config: PlatformConfig): Handlers<operations> {
  const learnerId = async (call: Call) => (await users.actingUser(call.principal!)).id;
  const caller = async (call: Call) => {
    const sessionId = call.principal?.claims?.scormSessionId;
    return typeof sessionId === 'string' ? { scormSessionId: sessionId } : { learnerLmsUserId: await learnerId(call) };
  };
  const ancestors = frameAncestors(config);

  return {
    getEnrollmentProgress: async (call) => ok(await player.progress(await learnerId(call), call.params.enrollmentId)),
    postItemLaunch: async (call) =>
      ok(await player.launch(await learnerId(call), call.params.enrollmentId, call.params.itemId, baseUrlOf(call.req))),
    postItemProgress: async (call) =>
      ok(await player.reportProgress(await learnerId(call), call.params.enrollmentId, call.params.itemId, call.body)),

    getScormSession: async (call) => {
      const session = await player.allowedSession(await caller(call), call.params.sessionId);
      return ok(await player.scormSession(session, baseUrlOf(call.req)));
    },

    postScormCmi: async (call) =>
      ok(await player.commit(await player.allowedSession(await caller(call), call.params.sessionId), call.body)),

    getScormPlayer: async (call): Promise<Reply> => {
      const who = await caller(call);
      const session = await player.allowedSession(who, call.params.sessionId);
      const view = await player.playerFor(
        session,
        who.scormSessionId ? String(call.principal!.claims!.token) : undefined,
      );
      const { html, nonce } = playerPage({
        title: view.title,
        scoUrl: `content/${session.sco_href}`,
        commitUrl: 'cmi',
        contentToken: view.token,
        learner: view.learner,
        cmi: view.cmi,
      });
      const secure = call.req.secure;
      const cookiePath = `${call.req.baseUrl}/player/scorm/${session.id}/`;
      return raw(html, 'text/html; charset=utf-8', {
        'Content-Security-Policy': `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; frame-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'self'; object-src 'none'; frame-ancestors ${ancestors}`,
        'Set-Cookie': `${tokenCookie}=${encodeURIComponent(view.token)}; Path=${cookiePath}; Max-Age=14400; HttpOnly; ${secure ? 'Secure; SameSite=None' : 'SameSite=Lax'}`,
      });
    },

    getScormContent: async (call): Promise<Reply> => {
      const session = await player.allowedSession(await caller(call), call.params.sessionId);
      const relative = String(call.params.path ?? '');
      if (relative === '') {
        return {
          kind: 'raw',
          status: 302,
          body: '',
          contentType: 'text/plain',
          headers: { Location: `${call.req.baseUrl}/player/scorm/${session.id}/content/${session.sco_href}` },
        };
      }
      const file = await player.contentFile(session, relative);
      // Packages are authored elsewhere and often need inline and evaluated scripts; they run in
      // their session's frame with nothing but that session's content token.
      return streamed(file.body, file.contentType, {
        'Content-Length': String(file.size),
        'Content-Security-Policy': `default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:; object-src 'none'; frame-ancestors ${ancestors}`,
      });
    },
  };
}
