import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { conflict, forbidden, notFound, unauthorized } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import { lifecycleWriter, tableStore } from '../../../platform/lifecycle.ts';
import { defineCourseModels, type Course, type CourseItem } from '../../catalogue/index.ts';
import type { Entitlements } from '../enrollments/entitlements.ts';
import { defineEnrollmentModels, type Enrollment } from '../enrollments/models.ts';
import type { StorageClient } from '../../orchestrator.ts';
import type { PackageStore } from '../../catalogue/index.ts';
import type { CmiSnapshot } from './page.ts';
import {
  itemProgressLifecycle,
  rollup,
  scorePercent,
  stateOfLessonStatus,
  type CourseRules,
  type ItemRecord,
  type ItemState,
} from './progress.ts';

/** How long a SCORM session's content token opens its player, files and commits. */
const contentTokenTtlMs = 4 * 3600 * 1000;

const newToken = () => randomBytes(24).toString('base64url');
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export interface ProgressSnapshot {
  enrollmentId: string;
  percentComplete: number;
  enrollmentStatus: Enrollment['status'];
  certificateIssued: boolean;
  items: Array<{ itemId: string; status: ItemState | 'locked'; scorePercent: number | null; locked: boolean }>;
}

interface SessionRow {
  id: string;
  enrollment_id: string;
  item_id: string;
  package_asset_id: string;
  sco_href: string;
  token_expires_at: Date;
}

/** What happens when an enrollment completes, inside its transaction (the certificate). */
export type OnCompleted = (
  enrollment: Enrollment,
  course: Course,
  transaction: Transaction,
) => Promise<Record<string, unknown>>;

export type Player = ReturnType<typeof createPlayer>;

/**
 * The learner's side of a course: progress and its rollup (sequencing locks, percentage, completion
 * policy), launching items, SCORM sessions with their content tokens, CMI commits and the package's
 * files. Completing an enrollment goes through the enrollment lifecycle (`complete`, which publishes
 * `lms.course.completed`) in the same transaction as the progress that completed it.
 */
export function createPlayer(deps: {
  sequelize: Sequelize;
  entitlements: Entitlements;
  packages: PackageStore;
  storage: StorageClient;
  onCompleted: OnCompleted;
  certificateIssued: (enrollmentId: string, transaction?: Transaction) => Promise<boolean>;
}) {
  const { sequelize, packages } = deps;
  const { Course, CourseModule, CourseItem } = defineCourseModels(sequelize);
  const { Enrollment, Entitlement } = defineEnrollmentModels(sequelize);
  const progress = lifecycleWriter(itemProgressLifecycle, {
    store: tableStore<{ id: string; status: ItemState }>('lms.lms_item_progress'),
  });

  /** The enrollment if it is the learner's: 404 when there is none, 403 when it is someone else's. */
  async function ownEnrollment(
    learnerLmsUserId: string,
    enrollmentId: string,
    transaction?: Transaction,
    lock = false,
  ): Promise<Enrollment> {
    const enrollment = await Enrollment.findByPk(enrollmentId, {
      transaction,
      lock: lock && transaction ? transaction.LOCK.UPDATE : undefined,
    });
    if (!enrollment) throw notFound('No such enrollment.');
    if (enrollment.learnerLmsUserId !== learnerLmsUserId)
      throw forbidden('auth.out_of_scope', "This enrollment is another learner's.");
    return enrollment;
  }

  async function rulesOf(
    courseId: string,
    transaction?: Transaction,
  ): Promise<{ course: Course; rules: CourseRules; items: CourseItem[] }> {
    const course = await Course.findByPk(courseId, { transaction, rejectOnEmpty: true });
    const modules = await CourseModule.findAll({
      where: { courseId },
      order: [
        ['position', 'ASC'],
        ['id', 'ASC'],
      ],
      transaction,
    });
    const order = new Map(modules.map((m, i) => [m.id, i]));
    const items = (await CourseItem.findAll({ where: { courseId }, transaction })).sort(
      (a, b) => order.get(a.moduleId)! - order.get(b.moduleId)! || a.position - b.position || a.id.localeCompare(b.id),
    );
    return {
      course,
      items,
      rules: {
        modules: modules.map((m) => ({ id: m.id, optional: m.optional })),
        items: items.map((i) => ({ id: i.id, moduleId: i.moduleId, type: i.type, required: i.required })),
        sequencing: course.sequencing ?? { prerequisites: [] },
        completionPolicy: course.completionPolicy,
      },
    };
  }

  async function records(enrollmentId: string, transaction?: Transaction): Promise<Map<string, ItemRecord>> {
    const rows = await sequelize.query<{ item_id: string; status: ItemState; score_percent: number | null }>(
      'SELECT item_id, status, score_percent FROM lms.lms_item_progress WHERE enrollment_id = $1',
      { type: QueryTypes.SELECT, bind: [enrollmentId], transaction },
    );
    return new Map(rows.map((row) => [row.item_id, { status: row.status, scorePercent: row.score_percent }]));
  }

  async function snapshotOf(
    enrollment: Enrollment,
    rules: CourseRules,
    transaction?: Transaction,
  ): Promise<ProgressSnapshot> {
    const result = rollup(rules, await records(enrollment.id, transaction));
    return {
      enrollmentId: enrollment.id,
      percentComplete:
        enrollment.status === 'completed'
          ? Math.max(result.percentComplete, enrollment.percentComplete)
          : result.percentComplete,
      enrollmentStatus: enrollment.status,
      certificateIssued: await deps.certificateIssued(enrollment.id, transaction),
      items: result.items,
    };
  }

  /** Whether the learner may take the course now: an active (or completed) enrollment on an active, unexpired entitlement. */
  async function requireEntitlement(enrollment: Enrollment, transaction?: Transaction): Promise<void> {
    const entitlement = enrollment.entitlementId
      ? await Entitlement.findByPk(enrollment.entitlementId, { transaction })
      : null;
    const valid = entitlement?.status === 'active' && (!entitlement.validUntil || entitlement.validUntil > new Date());
    if (!valid || (enrollment.status !== 'active' && enrollment.status !== 'completed')) {
      throw forbidden(
        'lms.entitlement.required',
        'This course is not open to you yet: it needs an active entitlement (pay for it, or be granted it).',
      );
    }
  }

  function requireUnlocked(snapshot: ProgressSnapshot, itemId: string): void {
    if (snapshot.items.find((i) => i.itemId === itemId)?.locked) {
      throw conflict(
        'lms.sequencing.locked',
        'This item opens once the items the course puts before it are completed.',
      );
    }
  }

  /**
   * Writes an item's state (one row per enrollment and item, locked while it changes), then the
   * enrollment's percentage; completes the enrollment when the completion policy is now met.
   */
  async function record(
    transaction: Transaction,
    enrollment: Enrollment,
    loaded: { course: Course; rules: CourseRules },
    itemId: string,
    change: (before: { status: ItemState; scorePercent: number | null } | undefined) => {
      status: ItemState;
      percent?: number;
      scorePercent?: number | null;
      cmi?: CmiSnapshot;
    },
  ): Promise<ProgressSnapshot> {
    await progress.create(
      transaction,
      'not_started',
      { id: newId(), enrollment_id: enrollment.id, item_id: itemId, percent: 0 },
      { by: 'learner', ignoreDuplicates: true },
    );
    const [before] = await sequelize.query<{
      id: string;
      status: ItemState;
      score_percent: number | null;
      percent: number;
      completed_at: Date | null;
    }>(
      'SELECT id, status, score_percent, percent, completed_at FROM lms.lms_item_progress WHERE enrollment_id = $1 AND item_id = $2 FOR UPDATE',
      { type: QueryTypes.SELECT, bind: [enrollment.id, itemId], transaction },
    );
    const next = change(
      before!.status === 'not_started' ? undefined : { status: before!.status, scorePercent: before!.score_percent },
    );
    await progress.move(transaction, before!, next.status, {
      by: 'learner',
      changes: {
        percent: next.status === 'completed' ? 100 : Math.max(before!.percent, next.percent ?? 0),
        score_percent: next.scorePercent === undefined ? before!.score_percent : next.scorePercent,
        ...(next.cmi ? { cmi: JSON.stringify(next.cmi) } : {}),
        ...(next.status === 'completed' && !before!.completed_at ? { completed_at: new Date() } : {}),
      },
    });
    const result = rollup(loaded.rules, await records(enrollment.id, transaction));
    if (enrollment.status === 'active') {
      enrollment.percentComplete = result.percentComplete;
      await enrollment.save({ transaction });
      if (result.complete) {
        const extra = await deps.onCompleted(enrollment, loaded.course, transaction);
        await deps.entitlements.move(transaction, enrollment, 'complete', 'learner', {
          courseTitle: loaded.course.title,
          ...extra,
        });
      }
    }
    return snapshotOf(enrollment, loaded.rules, transaction);
  }

  async function sessionOf(sessionId: string): Promise<SessionRow> {
    const [row] = await sequelize.query<SessionRow>(
      'SELECT id, enrollment_id, item_id, package_asset_id, sco_href, token_expires_at FROM lms.lms_scorm_sessions WHERE id = $1',
      { type: QueryTypes.SELECT, bind: [sessionId] },
    );
    if (!row) throw notFound('No such SCORM session.');
    return row;
  }

  async function lastCmi(enrollmentId: string, itemId: string): Promise<CmiSnapshot | undefined> {
    const [row] = await sequelize.query<{ cmi: CmiSnapshot | null }>(
      'SELECT cmi FROM lms.lms_item_progress WHERE enrollment_id = $1 AND item_id = $2',
      {
        type: QueryTypes.SELECT,
        bind: [enrollmentId, itemId],
      },
    );
    return row?.cmi ?? undefined;
  }

  /** A fresh content token replacing the session's (only its hash is kept), for a player opened with a bearer token. */
  async function issueToken(sessionId: string): Promise<string> {
    const token = newToken();
    await sequelize.query(
      'UPDATE lms.lms_scorm_sessions SET token_hash = $2, token_expires_at = $3, updated_at = now() WHERE id = $1',
      {
        bind: [sessionId, hashToken(token), new Date(Date.now() + contentTokenTtlMs)],
      },
    );
    return token;
  }

  const urls = (base: string, sessionId: string, token?: string) => ({
    launchUrl: `${base}/player/scorm/${sessionId}`,
    playerUrl: `${base}/player/scorm/${sessionId}/player${token ? `?ct=${token}` : ''}`,
    contentBaseUrl: `${base}/player/scorm/${sessionId}/content/`,
  });

  return {
    async progress(learnerLmsUserId: string, enrollmentId: string): Promise<ProgressSnapshot> {
      const enrollment = await ownEnrollment(learnerLmsUserId, enrollmentId);
      return snapshotOf(enrollment, (await rulesOf(enrollment.courseId)).rules);
    },

    /** Opens an item for the learner; `base` is the API's base URL as the caller reached it. */
    async launch(learnerLmsUserId: string, enrollmentId: string, itemId: string, base: string) {
      const enrollment = await ownEnrollment(learnerLmsUserId, enrollmentId);
      const loaded = await rulesOf(enrollment.courseId);
      const item = loaded.items.find((i) => i.id === itemId);
      if (!item) throw notFound('The course has no such item.');
      await requireEntitlement(enrollment);
      requireUnlocked(await snapshotOf(enrollment, loaded.rules), itemId);
      if (item.type === 'scorm_package') {
        if (!item.packageAssetId) throw notFound('This SCORM item has no package yet.');
        const stored = await packages.ready(item.packageAssetId);
        const sessionId = newId();
        const token = newToken();
        await sequelize.transaction(async (transaction) => {
          await sequelize.query(
            `INSERT INTO lms.lms_scorm_sessions (id, enrollment_id, item_id, package_asset_id, sco_href, token_hash, token_expires_at, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, now(), now())`,
            {
              bind: [
                sessionId,
                enrollment.id,
                item.id,
                stored.packageAssetId,
                stored.scoHref,
                hashToken(token),
                new Date(Date.now() + contentTokenTtlMs),
              ],
              transaction,
            },
          );
          if (enrollment.status === 'active')
            await record(
              transaction,
              await ownEnrollment(learnerLmsUserId, enrollmentId, transaction, true),
              loaded,
              item.id,
              (before) => before ?? { status: 'in_progress' },
            );
        });
        return { itemId: item.id, type: item.type, sessionId, ...urls(base, sessionId, token) };
      }
      if (item.type !== 'quiz' && enrollment.status === 'active') {
        await sequelize.transaction(async (transaction) =>
          record(
            transaction,
            await ownEnrollment(learnerLmsUserId, enrollmentId, transaction, true),
            loaded,
            item.id,
            (before) => before ?? { status: 'in_progress' },
          ),
        );
      }
      const media = item.mediaAssetId ? await deps.storage.assetUrl(item.mediaAssetId) : undefined;
      return { itemId: item.id, type: item.type, sessionId: null, ...(media ? { launchUrl: media } : {}) };
    },

    /** Progress the learner reports on a lesson, video or assignment. */
    async reportProgress(
      learnerLmsUserId: string,
      enrollmentId: string,
      itemId: string,
      input: { status: 'in_progress' | 'completed'; percent?: number },
    ) {
      return sequelize.transaction(async (transaction) => {
        const enrollment = await ownEnrollment(learnerLmsUserId, enrollmentId, transaction, true);
        const loaded = await rulesOf(enrollment.courseId, transaction);
        const item = loaded.items.find((i) => i.id === itemId);
        if (!item) throw notFound('The course has no such item.');
        if (item.type === 'scorm_package' || item.type === 'quiz') {
          throw conflict(
            'lms.item.progress_not_manual',
            item.type === 'quiz'
              ? 'A quiz progresses through its attempts.'
              : 'A SCORM item progresses through its CMI commits.',
          );
        }
        if (enrollment.status !== 'active')
          throw conflict(
            'lms.enrollment.not_active',
            `The enrollment is ${enrollment.status}: progress is recorded on an active enrollment only.`,
          );
        requireUnlocked(await snapshotOf(enrollment, loaded.rules, transaction), itemId);
        return record(transaction, enrollment, loaded, itemId, (before) => ({
          status: before?.status === 'completed' ? 'completed' : input.status,
          percent: input.percent,
        }));
      });
    },

    /** Records a quiz's outcome (Assessments): passed completes the item, otherwise it is failed. */
    async recordAssessment(
      transaction: Transaction,
      enrollment: Enrollment,
      itemId: string,
      outcome: { scorePercent: number; passed: boolean },
    ) {
      const loaded = await rulesOf(enrollment.courseId, transaction);
      return record(transaction, enrollment, loaded, itemId, (before) => ({
        status: before?.status === 'completed' || outcome.passed ? 'completed' : 'failed',
        scorePercent: Math.max(outcome.scorePercent, before?.scorePercent ?? 0),
      }));
    },

    ownEnrollment,
    rulesOf,
    requireEntitlement,
    requireUnlocked,
    snapshotOf,

    /**
     * The session the caller may use: with a content token, only the token's own session; with a
     * bearer token, the learner's own sessions.
     */
    async allowedSession(
      caller: { scormSessionId?: string; learnerLmsUserId?: string },
      sessionId: string,
    ): Promise<SessionRow> {
      const session = await sessionOf(sessionId);
      if (caller.scormSessionId !== undefined) {
        if (caller.scormSessionId !== sessionId)
          throw forbidden('auth.out_of_scope', 'This content token is for another SCORM session.');
      } else {
        await ownEnrollment(caller.learnerLmsUserId!, session.enrollment_id);
      }
      return session;
    },

    /** The session whose content token this is, if it is valid now. */
    async sessionOfToken(token: string): Promise<{ sessionId: string; userId: string } | undefined> {
      const [row] = await sequelize.query<{ id: string; user_id: string }>(
        `SELECT s.id, u.user_id FROM lms.lms_scorm_sessions s JOIN lms.lms_enrollments e ON e.id = s.enrollment_id
           JOIN lms.lms_users u ON u.id = e.learner_lms_user_id
          WHERE s.token_hash = $1 AND s.token_expires_at > now() AND u.status = 'active'`,
        { type: QueryTypes.SELECT, bind: [hashToken(token)] },
      );
      return row && { sessionId: row.id, userId: row.user_id };
    },

    async scormSession(session: SessionRow, base: string) {
      const cmi = await lastCmi(session.enrollment_id, session.item_id);
      return {
        sessionId: session.id,
        enrollmentId: session.enrollment_id,
        itemId: session.item_id,
        packageAssetId: session.package_asset_id,
        scoHref: session.sco_href,
        ...urls(base, session.id),
        ...(cmi ? { cmi } : {}),
      };
    },

    /** What the player page needs: the item's title, the last commit, the learner, and a content token (the caller's, or a new one for a bearer caller). */
    async playerFor(session: SessionRow, presentedToken: string | undefined) {
      const [row] = await sequelize.query<{
        title: string;
        lms_user_id: string;
        display_name: string | null;
        email: string | null;
      }>(
        `SELECT i.title, u.id AS lms_user_id, u.display_name, u.email FROM lms.lms_items i, lms.lms_enrollments e JOIN lms.lms_users u ON u.id = e.learner_lms_user_id
          WHERE i.id = $1 AND e.id = $2`,
        { type: QueryTypes.SELECT, bind: [session.item_id, session.enrollment_id] },
      );
      return {
        title: row!.title,
        learner: { id: row!.lms_user_id, name: row!.display_name ?? row!.email ?? '' },
        cmi: await lastCmi(session.enrollment_id, session.item_id),
        token: presentedToken ?? (await issueToken(session.id)),
      };
    },

    /** A CMI commit: kept for resuming, and turned into the item's progress. */
    async commit(session: SessionRow, cmi: CmiSnapshot): Promise<ProgressSnapshot> {
      return sequelize.transaction(async (transaction) => {
        const enrollment = await Enrollment.findByPk(session.enrollment_id, {
          transaction,
          lock: transaction.LOCK.UPDATE,
          rejectOnEmpty: true,
        });
        await requireEntitlement(enrollment, transaction);
        const loaded = await rulesOf(enrollment.courseId, transaction);
        const stored: CmiSnapshot = {
          lessonStatus: cmi.lessonStatus,
          scoreRaw: cmi.scoreRaw ?? null,
          scoreMax: cmi.scoreMax ?? null,
          sessionTime: cmi.sessionTime ?? '',
          suspendData: cmi.suspendData ?? '',
          location: cmi.location ?? '',
        };
        return record(transaction, enrollment, loaded, session.item_id, (before) => {
          const score = scorePercent(cmi.scoreRaw, cmi.scoreMax);
          return {
            status: stateOfLessonStatus(cmi.lessonStatus, before?.status),
            scorePercent: score ?? before?.scorePercent ?? null,
            cmi: stored,
          };
        });
      });
    },

    /**
     * A file of the session's package: a path inside the package's folder only (`..`, absolute paths
     * and anything resolving outside are 404), as a stream with its type.
     */
    async contentFile(
      session: SessionRow,
      relative: string,
    ): Promise<{ body: Readable; contentType: string; size: number }> {
      const folder = packages.folderOf(session.package_asset_id);
      const target = path.resolve(folder, relative);
      if (!target.startsWith(folder + path.sep) || relative.includes('\0'))
        throw notFound('No such file in the package.');
      let stat = await fs.promises.stat(target).catch(() => undefined);
      if (!stat) {
        // The package's folder may be gone (a fresh data directory): extracted again from its asset.
        await packages.ready(session.package_asset_id);
        stat = await fs.promises.stat(target).catch(() => undefined);
      }
      if (!stat?.isFile()) throw notFound('No such file in the package.');
      return { body: fs.createReadStream(target), contentType: contentTypeOf(target), size: stat.size };
    },

    unauthenticated: () =>
      unauthorized('auth.unauthenticated', 'Send a bearer token, or the content token of this SCORM session.'),
  };
}

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.xsd': 'application/xml',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.ogg': 'audio/ogg',
  '.pdf': 'application/pdf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.swf': 'application/x-shockwave-flash',
};

export const contentTypeOf = (file: string) =>
  contentTypes[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
