/** The work of `capctl lms enroll` and `capctl lms scorm upload` (lms-learning.ts declares them). */
import fs from 'node:fs/promises';
import path from 'node:path';
import { samplePackage } from '../../server/lms/operator.ts';
import { multipartBody } from '../multipart.ts';
import { print, UsageError } from '../output.ts';
import { runCommand, type Session } from '../session.ts';
import { asProfileUser, type SignedInOptions } from './signed-in.ts';

export interface EnrollOptions extends SignedInOptions {
  checkout: boolean;
}

export interface ScormUploadOptions extends SignedInOptions {
  module?: string;
  title?: string;
}

interface Enrollment {
  id: string;
  courseId: string;
  courseTitle?: string;
  status: string;
}

interface Checkout {
  paymentId: string;
  checkoutUrl: string;
  amount: { amountMinorUnits: string; currency: string };
}

const checkoutLines = (checkout: Checkout) => [
  `pay ${checkout.amount.currency} ${checkout.amount.amountMinorUnits} (minor units) at ${checkout.checkoutUrl}`,
  `  capctl pay ${checkout.checkoutUrl}`,
];
const startCheckout = (session: Session, enrollmentId: string) =>
  session.call<Checkout>('POST', `/v1/lms/enrollments/${encodeURIComponent(enrollmentId)}/checkout`);

export function enroll(courseId: string, options: EnrollOptions) {
  return runCommand(Boolean(options.json), () =>
    asProfileUser(options, async (session) => {
      const enrollment = await session.call<Enrollment>(
        'POST',
        `/v1/lms/courses/${encodeURIComponent(courseId)}/enrollments`,
      );
      const checkout =
        enrollment.status === 'pending' && options.checkout ? await startCheckout(session, enrollment.id) : undefined;
      print({ enrollment, ...(checkout ? { checkout } : {}) }, Boolean(options.json), () =>
        [
          `enrollment ${enrollment.id} in ${enrollment.courseTitle ?? enrollment.courseId}: ${enrollment.status}`,
          ...(checkout ? checkoutLines(checkout) : []),
        ].join('\n'),
      );
    }),
  );
}

export function checkout(enrollmentId: string, options: SignedInOptions) {
  return runCommand(Boolean(options.json), () =>
    asProfileUser(options, async (session) => {
      const started = await startCheckout(session, enrollmentId);
      print(started, Boolean(options.json), () => checkoutLines(started).join('\n'));
    }),
  );
}

export function scormUpload(file: string | undefined, options: ScormUploadOptions) {
  return runCommand(Boolean(options.json), () =>
    asProfileUser(options, async (session) => {
      const target = options.module ? /^([^/]+)\/([^/]+)$/.exec(options.module) : undefined;
      if (options.module && !target) throw new UsageError('--module takes <courseId>/<moduleId>');
      const bytes = file
        ? await fs.readFile(file).catch((err: NodeJS.ErrnoException) => {
            throw new UsageError(`cannot read ${file}: ${err.code ?? err.message}`);
          })
        : await samplePackage();
      const fileName = file ? path.basename(file) : 'workshop-safety.zip';
      const asset = await session.call<{ assetId: string }>('POST', '/v1/ol/storage/upload', () =>
        multipartBody(fileName, bytes, { purpose: 'scorm_package' }),
      );
      const item = target
        ? await session.call<{ id: string; scoHref: string | null }>(
            'POST',
            `/v1/lms/authoring/courses/${encodeURIComponent(target[1]!)}/modules/${encodeURIComponent(target[2]!)}/items`,
            () => ({ type: 'scorm_package', title: options.title, packageAssetId: asset.assetId }),
          )
        : undefined;
      print({ packageAssetId: asset.assetId, ...(item ? { item } : {}) }, Boolean(options.json), () =>
        [
          `package ${asset.assetId} (${fileName}, ${bytes.length} bytes)`,
          ...(item ? [`item ${item.id} launches ${item.scoHref}`] : []),
        ].join('\n'),
      );
    }),
  );
}
