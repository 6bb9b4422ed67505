import { AppError, notFound } from '../../../platform/http/errors.ts';
import type { operations } from '../../../contracts/openapi/ol.ts';
import type { Handlers } from '../../../platform/http/operations.ts';
import { ok, raw, type Reply } from '../../../platform/http/reply.ts';
import { checkoutPage, checkoutScript, checkoutStyles, notFoundPage } from './page.ts';
import type { SandboxPayments } from './service.ts';

const html = 'text/html; charset=utf-8';
// The page loads only its own script, style sheet and API; it may not be framed.
const pageHeaders = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
};
const assets: Record<string, { body: string; type: string }> = {
  'checkout.js': { body: checkoutScript, type: 'text/javascript; charset=utf-8' },
  'checkout.css': { body: checkoutStyles, type: 'text/css; charset=utf-8' },
};

/** The sandbox provider's hosted checkout: its page, the page's files, and the JSON API the page's buttons call. */
export function sandboxRoutes(sandbox: SandboxPayments): Handlers<operations> {
  return {
    getSandboxCheckoutPage: async (call): Promise<Reply> => {
      try {
        return raw(checkoutPage(await sandbox.transaction(String(call.params.reference))), html, pageHeaders);
      } catch (err) {
        if (!(err instanceof AppError) || err.status !== 404) throw err;
        return { kind: 'raw', status: 404, body: notFoundPage(), contentType: html, headers: pageHeaders };
      }
    },
    getSandboxCheckoutAsset: (call) => {
      if (!sandbox.enabled) throw notFound('The sandbox payment provider is not in use (PAYMENT_PROVIDER).');
      const asset = assets[String(call.params.asset)];
      if (!asset) throw notFound('No such asset.');
      return raw(asset.body, asset.type, { 'Cache-Control': 'public, max-age=300' });
    },
    getSandboxTransaction: async (call) => ok(await sandbox.transaction(String(call.params.reference))),
    paySandboxTransaction: async (call) => ok(await sandbox.pay(String(call.params.reference), call.body ?? {})),
    declineSandboxTransaction: async (call) => ok(await sandbox.decline(String(call.params.reference))),
    cancelSandboxTransaction: async (call) => ok(await sandbox.cancel(String(call.params.reference))),
  };
}
