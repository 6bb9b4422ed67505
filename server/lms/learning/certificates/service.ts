import { randomBytes } from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { forbidden, notFound } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import { defineLifecycle, lifecycleWriter, tableStore } from '../../../platform/lifecycle.ts';
import type { Logger } from '../../../platform/logger.ts';
import { Conditions, keysetRows } from '../../../platform/db/keyset.ts';
import { preparedReads } from '../../../platform/db/prepared.ts';
import type { PageRequest } from '../../../platform/http/pagination.ts';
import { renderCertificatePdf } from '../../../platform/pdf/certificate.ts';
import type { Actor } from '../../people/index.ts';
import type { Course } from '../../catalogue/index.ts';
import type { Enrollment } from '../enrollments/models.ts';
import type { StorageClient } from '../../orchestrator.ts';

/** A certificate, as data: `issued` once per completed enrollment, by the completion. Revoking is not offered yet. */
export const certificateLifecycle = defineLifecycle({
  subject: 'certificate',
  statuses: ['issued', 'revoked'],
  movers: ['lms'],
  moves: { issue: { from: [null], to: 'issued', by: ['lms'] } },
});

interface CertificateRow {
  id: string;
  enrollment_id: string;
  course_id: string;
  course_title: string;
  learner_lms_user_id: string;
  status: 'issued' | 'revoked';
  verification_code: string;
  asset_id: string | null;
  issued_at: Date;
  revoked_at: Date | null;
}

const view = (row: CertificateRow) => ({
  id: row.id,
  enrollmentId: row.enrollment_id,
  courseId: row.course_id,
  courseTitle: row.course_title,
  learnerLmsUserId: row.learner_lms_user_id,
  status: row.status,
  assetId: row.asset_id,
  issuedAt: row.issued_at.toISOString(),
  revokedAt: row.revoked_at?.toISOString() ?? null,
});

/** A code a person can read out and type: 12 characters of Crockford's base32, no I, L, O or U. */
function verificationCode(): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  return [...randomBytes(12)].map((b) => alphabet[b & 31]).join('');
}

const selectCertificate = `SELECT c.*, co.title AS course_title FROM lms.lms_certificates c JOIN lms.lms_courses co ON co.id = c.course_id`;

export type Certificates = ReturnType<typeof createCertificates>;

/**
 * LMS certificates: one per completed enrollment, issued in the transaction that completes it (with a
 * verification code), its PDF rendered and stored in the Orchestrator as the learner's own asset right
 * after, by the `lms.course.completed` consumer (so a storage hiccup delays the document, never the
 * completion; the bus retries it).
 */
export function createCertificates(deps: { sequelize: Sequelize; storage: StorageClient; logger: Logger }) {
  const { sequelize } = deps;
  const select = <T extends object>(sql: string, bind: unknown[], transaction?: Transaction) =>
    sequelize.query<T>(sql, { type: QueryTypes.SELECT, bind, transaction });
  const read = preparedReads(sequelize);
  const certificates = lifecycleWriter(certificateLifecycle, { store: tableStore('lms.lms_certificates') });

  async function visible(actor: Actor, row: CertificateRow | undefined): Promise<CertificateRow> {
    if (!row) throw notFound('No such certificate.');
    if (row.learner_lms_user_id !== actor.user.id && !actor.staffRole)
      throw forbidden('auth.out_of_scope', "This certificate is another learner's.");
    return row;
  }

  return {
    /** Issues the enrollment's certificate (once); answers what `lms.course.completed` carries about it. */
    async issue(enrollment: Enrollment, course: Course, transaction: Transaction) {
      const values = {
        id: newId(),
        enrollment_id: enrollment.id,
        course_id: course.id,
        learner_lms_user_id: enrollment.learnerLmsUserId,
        verification_code: verificationCode(),
        issued_at: new Date(),
      };
      await certificates.create(transaction, 'issue', values, { by: 'lms', ignoreDuplicates: true });
      const [row] = await select<CertificateRow>(
        `${selectCertificate} WHERE c.enrollment_id = $1`,
        [enrollment.id],
        transaction,
      );
      return { certificateId: row!.id };
    },

    issued: async (enrollmentId: string, transaction?: Transaction) =>
      (
        await select(
          `SELECT 1 FROM lms.lms_certificates WHERE enrollment_id = $1 AND status = 'issued'`,
          [enrollmentId],
          transaction,
        )
      ).length > 0,

    /** Renders the certificate's PDF and stores it as the learner's asset, unless it has one already. */
    async document(certificateId: string): Promise<void> {
      const [row] = await select<
        CertificateRow & { display_name: string | null; email: string | null; user_id: string }
      >(
        `${selectCertificate.replace('SELECT c.*', 'SELECT c.*, u.display_name, u.email, u.user_id')} JOIN lms.lms_users u ON u.id = c.learner_lms_user_id WHERE c.id = $1`,
        [certificateId],
      );
      if (!row || row.asset_id) return;
      const pdf = await renderCertificatePdf({
        title: 'Certificate of Completion',
        preamble: 'This certifies that',
        holderName: row.display_name || row.email || 'Learner',
        facts: [
          { label: 'Completed the course', value: row.course_title },
          { label: 'Certificate', value: row.id },
        ],
        issuedOn: row.issued_at,
        verificationCode: row.verification_code,
        issuer: 'CAP Platform LMS',
      });
      const assetId = await deps.storage.storeFile({
        ownerUserId: row.user_id,
        bytes: pdf,
        fileName: `certificate-${row.verification_code}.pdf`,
        mimeType: 'application/pdf',
        purpose: 'certificate',
      });
      await sequelize.query(
        'UPDATE lms.lms_certificates SET asset_id = $2, updated_at = now() WHERE id = $1 AND asset_id IS NULL',
        { bind: [certificateId, assetId] },
      );
    },

    async mine(actor: Actor, page: PageRequest) {
      const { items, meta } = await keysetRows<CertificateRow>(read, page, {
        select: 'c.*, co.title AS course_title',
        from: 'lms.lms_certificates c JOIN lms.lms_courses co ON co.id = c.course_id',
        alias: 'c',
        where: new Conditions().add('c.learner_lms_user_id = ?', actor.user.id),
        key: 'c.id',
        desc: true,
      });
      return { data: items.map(view), meta };
    },

    get: async (actor: Actor, certificateId: string) =>
      view(
        await visible(
          actor,
          (await select<CertificateRow>(`${selectCertificate} WHERE c.id = $1`, [certificateId]))[0],
        ),
      ),

    async forEnrollment(actor: Actor, enrollmentId: string) {
      const [enrollment] = await select<{ learner_lms_user_id: string }>(
        'SELECT learner_lms_user_id FROM lms.lms_enrollments WHERE id = $1',
        [enrollmentId],
      );
      if (!enrollment) throw notFound('No such enrollment.');
      if (enrollment.learner_lms_user_id !== actor.user.id && !actor.staffRole)
        throw forbidden('auth.out_of_scope', "This enrollment is another learner's.");
      const [row] = await select<CertificateRow>(`${selectCertificate} WHERE c.enrollment_id = $1`, [enrollmentId]);
      if (!row) throw notFound('This enrollment has no certificate (yet): it is issued when the course is completed.');
      return view(row);
    },
  };
}
