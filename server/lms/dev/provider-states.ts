import {
  applyStates,
  loadStateDefinitions,
  substitute,
  type StateDefinition,
} from '../../platform/dev/provider-states.ts';
import { platformCall } from '../../platform/dev/http.ts';
import { onboard, verifiedUser, type VerifiedUser } from '../../contracts/dev-states.ts';
import { QueryTypes } from 'sequelize';
import { notFound } from '../../platform/http/errors.ts';
import type { operations } from '../../contracts/openapi/lms.ts';
import type { Handlers } from '../../platform/http/operations.ts';
import { raw } from '../../platform/http/reply.ts';
import { newId } from '../../platform/ids.ts';
import type { ServiceDeps } from '../../platform/service.ts';
import { samplePackage } from '../catalogue/index.ts';
import { createInvites } from '../people/index.ts';
import type { StaffRole } from '../people/index.ts';

/**
 * The LMS's provider states for contract tests (development mode only): verified users with onboardings
 * at a given stage, instructors and their courses, learners of a paid course, a completed course's event. Defined in fixtures/states/lms.yaml. The account comes from the Orchestrator's
 * own "a verified user" state and the onboardings from the LMS's public API, all over HTTP.
 */
export function lmsProviderStateRoutes(
  deps: Pick<ServiceDeps, 'config' | 'peers' | 'sequelize'>,
): Handlers<operations> {
  /** An instructor: the invite is written as an operator would (only staff invite through the API), then onboarded. */
  async function instructor(user: VerifiedUser) {
    await createInvites(deps.sequelize).create('instructor', user.email, null);
    await onboard('lms', deps.peers.url('lms'), user, ['instructor'], 'submitted');
    return (await platformCall(deps.peers.url('lms'), 'GET', '/me', { token: user.accessToken })).data
      .lmsUserId as string;
  }

  /** A course of the instructor: `empty` (no modules), `complete` (a module with a lesson) or `published`. */
  async function course(user: VerifiedUser, stage: string, priceMinorUnits = '1500000') {
    const as = (method: 'POST', path: string, body?: unknown) =>
      platformCall(deps.peers.url('lms'), method, path, { body, token: user.accessToken });
    const title = 'Floor tiling basics';
    const { id } = (
      await as('POST', '/authoring/courses', { title, price: { amountMinorUnits: priceMinorUnits, currency: 'NGN' } })
    ).data;
    if (stage === 'empty') return { courseId: id as string, courseTitle: title, moduleId: null };
    const module = (await as('POST', `/authoring/courses/${id}/modules`, { title: 'Setting out' })).data;
    await as('POST', `/authoring/courses/${id}/modules/${module.id}/items`, {
      type: 'native_lesson',
      title: 'Tools',
      body: { schemaVersion: 1, html: '<p>Trowels</p>' },
    });
    if (stage === 'published') await as('POST', `/authoring/courses/${id}/publish`);
    return { courseId: id as string, courseTitle: title, moduleId: module.id as string };
  }

  /** The bundled SCORM package, uploaded by the user to the Orchestrator's storage as a browser would (multipart); answers its asset id. */
  async function uploadSamplePackage(user: VerifiedUser): Promise<string> {
    const form = new FormData();
    form.append('purpose', 'scorm_package');
    form.append(
      'file',
      new Blob([new Uint8Array(await samplePackage())], { type: 'application/zip' }),
      'workshop-safety.zip',
    );
    const res = await fetch(`${deps.peers.url('ol')}/storage/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.accessToken}` },
      body: form,
    });
    const body = (await res.json()) as { data?: { assetId?: string } };
    if (res.status !== 201 || !body.data?.assetId)
      throw new Error(`uploading the sample package answered ${res.status}`);
    return body.data.assetId;
  }

  /** A staff member with `role`, invited as an operator would, then onboarded. */
  async function staffMember(user: VerifiedUser, role: StaffRole) {
    await createInvites(deps.sequelize).create('staff', user.email, null, role);
    await onboard('lms', deps.peers.url('lms'), user, ['staff'], 'submitted');
    return (await platformCall(deps.peers.url('lms'), 'GET', '/me', { token: user.accessToken })).data
      .lmsUserId as string;
  }

  /** A learner and a paid course another account (an instructor) published; optionally the learner's pending enrollment in it. */
  async function learnerOfPaidCourse(user: VerifiedUser, enrolled: boolean) {
    const author = await verifiedUser(deps.peers.url('ol'), {}, ['lms']);
    await instructor(author);
    const { courseId } = await course(author, 'published');
    await onboard('lms', deps.peers.url('lms'), user, ['learner'], 'submitted');
    const lms = (method: 'GET' | 'POST', path: string) =>
      platformCall(deps.peers.url('lms'), method, path, { token: user.accessToken });
    const lmsUserId = (await lms('GET', '/me')).data.lmsUserId as string;
    const enrollmentId = enrolled ? ((await lms('POST', `/courses/${courseId}/enrollments`)).data.id as string) : null;
    return { lmsUserId, courseId, enrollmentId };
  }

  /** A learner who completed a free one-lesson course through the API, and the lms.course.completed it published. */
  async function completedCourse(user: VerifiedUser) {
    const author = await verifiedUser(deps.peers.url('ol'), {}, ['lms']);
    await instructor(author);
    const { courseId } = await course(author, 'published', '0');
    await onboard('lms', deps.peers.url('lms'), user, ['learner'], 'submitted');
    const lms = (method: 'GET' | 'POST', path: string, body?: unknown) =>
      platformCall(deps.peers.url('lms'), method, path, { body, token: user.accessToken });
    const lmsUserId = (await lms('GET', '/me')).data.lmsUserId as string;
    const enrollmentId = (await lms('POST', `/courses/${courseId}/enrollments`)).data.id as string;
    const lessonId = (await lms('GET', `/courses/${courseId}/outline`)).data.modules[0].items[0].id as string;
    await lms('POST', `/enrollments/${enrollmentId}/items/${lessonId}/progress`, { status: 'completed' });
    const [row] = await deps.sequelize.query<{
      id: string;
      type: string;
      occurred_at: Date;
      source: string;
      data: Record<string, unknown>;
    }>(
      `SELECT id, type, occurred_at, source, data FROM lms.outbox WHERE type = 'lms.course.completed' AND data->>'enrollmentId' = $1`,
      { bind: [enrollmentId], type: QueryTypes.SELECT },
    );
    if (!row) throw new Error(`enrollment ${enrollmentId} was completed but published no lms.course.completed`);
    const event = {
      id: row.id,
      type: row.type,
      occurredAt: row.occurred_at.toISOString(),
      source: row.source,
      data: row.data,
    };
    return { lmsUserId, courseId, enrollmentId, event };
  }

  async function setUp(definition: StateDefinition, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { intents } = definition.creates.account as { intents: string[] };
    const user = await verifiedUser(deps.peers.url('ol'), params, intents);
    if (definition.creates.event === 'lms.course.completed') return { ...user, ...(await completedCourse(user)) };
    const learnerOf = definition.creates.learnerOf as { enrolled: unknown } | undefined;
    if (learnerOf)
      return {
        ...user,
        ...(await learnerOfPaidCourse(user, String(substitute(learnerOf.enrolled, params)) === 'yes')),
      };
    const staff = definition.creates.staff as { role: unknown } | undefined;
    if (staff) {
      // A fresh address each time: verifying the same pact twice against one platform invites anew.
      const inviteeEmail = `invitee+${newId().toLowerCase()}@example.test`;
      return {
        ...user,
        lmsUserId: await staffMember(user, String(substitute(staff.role, params)) as StaffRole),
        inviteeEmail,
      };
    }
    if (definition.creates.instructor) {
      const lmsUserId = await instructor(user);
      const wanted = definition.creates.course as { stage: unknown; scormPackage: unknown } | undefined;
      if (!wanted) return { ...user, lmsUserId };
      const packageAssetId =
        String(substitute(wanted.scormPackage, params)) === 'yes' ? await uploadSamplePackage(user) : null;
      return { ...user, lmsUserId, ...(await course(user, String(substitute(wanted.stage, params)))), packageAssetId };
    }
    const onboardings = definition.creates.onboardings as { personas: unknown; stage: unknown } | undefined;
    if (!onboardings) return { ...user };
    const personas = substitute(onboardings.personas, params) as string[];
    const onboardingId = await onboard(
      'lms',
      deps.peers.url('lms'),
      user,
      personas,
      String(substitute(onboardings.stage, params)),
    );
    return { ...user, onboardingId };
  }

  return {
    changeProviderState: async (call) => {
      if (!deps.config.devMode) throw notFound('Provider states exist only in development mode.');
      return raw(JSON.stringify(await applyStates(call.body, loadStateDefinitions('lms'), setUp)), 'application/json');
    },
  };
}
