import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Sequelize } from 'sequelize';
import { isReachable } from '../db/database.ts';
import { migrationsApplied, type Migrator } from '../db/migrations.ts';
import { notFound, serviceUnavailable } from './errors.ts';
import type { Handler } from './operations.ts';
import type { ApiDocument } from './openapi.ts';
import { ok, raw } from './reply.ts';

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const assetTypes: Record<string, string> = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'text/javascript',
  'swagger-ui-standalone-preset.js': 'text/javascript',
  'favicon-32x32.png': 'image/png',
};

/** The operations every service has: liveness, readiness, its API document and a browsable reference. */
export function standardHandlers(
  service: string,
  doc: ApiDocument,
  sequelize: Sequelize,
  migrator: Migrator,
): Record<string, Handler> {
  const title = String((doc.bundled.info as { title?: string } | undefined)?.title ?? service);
  const page = referencePage(title);
  // Written once, on the first request: the CAP document is 2.4 MB of JSON, read by every scenario run.
  let documentText: string | undefined;
  return {
    getHealthz: () => ok({ status: 'ok', service }),
    getReadyz: async () => {
      if (!(await isReachable(sequelize)))
        throw serviceUnavailable('service.not_ready', `${service}: the database is not reachable.`);
      if (!(await migrationsApplied(migrator)))
        throw serviceUnavailable('service.not_ready', `${service}: database migrations are not applied.`);
      return ok({ status: 'ready', service });
    },
    getOpenApiDocument: () => raw((documentText ??= JSON.stringify(doc.bundled)), 'application/json'),
    getApiReference: () => raw(page, 'text/html; charset=utf-8'),
    getApiReferenceAsset: (call) => {
      const file = String(call.params.asset);
      if (file === 'reference.js')
        return raw(referenceScript, 'text/javascript', { 'Cache-Control': 'public, max-age=86400' });
      const type = assetTypes[file];
      if (!type) throw notFound('No such asset.');
      return raw(fs.readFileSync(path.join(swaggerUiDir, file)), type, { 'Cache-Control': 'public, max-age=86400' });
    },
  };
}

// A file, not an inline script: the content security policy allows scripts from this origin only.
const referenceScript = `window.addEventListener('load', function () {
  SwaggerUIBundle({ url: 'openapi.json', dom_id: '#reference', deepLinking: true });
});
`;

/** The reference page loads the document relative to itself, so it works under any prefix. */
function referencePage(title: string): string {
  const escaped = title.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escaped} - API reference</title>
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
<link rel="icon" href="docs/assets/favicon-32x32.png">
</head>
<body>
<div id="reference"></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/assets/reference.js"></script>
</body>
</html>
`;
}
