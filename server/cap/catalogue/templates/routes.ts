import type { operations } from '../../../contracts/openapi/cap.ts';
import type { CallInput, Handler, Handlers } from '../../../platform/http/operations.ts';
import { created, ok } from '../../../platform/http/reply.ts';
import type { CapAuth, PlatformRoles } from '../../people/index.ts';
import type { Templates } from './service.ts';

/** Downloadable and workflow templates (openapi/cap/templates.yaml). */
export function templateRoutes(auth: CapAuth, roles: PlatformRoles, templates: Templates): Handlers<operations> {
  const admin = <In extends CallInput>(handler: Handler<In>) =>
    roles.allowed(auth, 'platform.templates.write', handler);
  return {
    listAdminTemplates: admin(async () => ok(await templates.downloads())),
    putAdminTemplates: admin(async (call) =>
      ok(await templates.putDownloads(auth.caller(call).userId, auth.token(call), call.body.templates)),
    ),
    getThirdPartyReportTemplate: async () => ok(await templates.thirdPartyReportTemplate()),
    listWorkflowTemplates: admin(async () => ok(await templates.workflows())),
    listWorkflowTemplateVersions: admin(async (call) =>
      ok(await templates.workflowVersions(call.params.applicationType)),
    ),
    publishWorkflowTemplate: admin(async (call) =>
      created(await templates.publishWorkflow(auth.caller(call).userId, call.params.applicationType, call.body)),
    ),
  };
}
