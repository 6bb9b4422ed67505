import test from 'ava';
import { MatchersV3 } from '@pact-foundation/pact';
import { createSequelize } from '../../server/platform/db/database.ts';
import { createEventRuntime } from '../../server/platform/events/runtime.ts';
import type { PlatformEvent } from '../../server/platform/events/types.ts';
import { lmsLearner } from '../helpers/lms.ts';
import { lmsCourse, lmsDatabase } from '../helpers/lms-learning.ts';
import { captureLogs, eventually, sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { isoDateTime, pactFiles, ulid } from './support.ts';

// The LMS's certificate renderer (lms.certificate-document) takes lms.course.completed from the bus and
// stores the certificate's PDF. The message is put in the LMS outbox of a real platform, the real bus
// delivers it, and the test checks the effect: the issued certificate it names gets its document.
// Writes pacts/lms-certificates-lms.json; downstream consumers of the event can read the same contract.

const { string } = MatchersV3;
const pact = pactFiles(test);

let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

test.serial('the certificate renderer stores the PDF of the certificate lms.course.completed names', async (t) => {
  const certificateId = '01J9Z8X7W6V5T4S3R2Q1P0CER1';
  const learner = await lmsLearner(platform);
  const db = lmsDatabase(platform);
  t.teardown(() => db.close());
  const { courseId } = await lmsCourse(db.sequelize, {
    createdBy: learner.lmsUserId,
    title: 'Grouting',
    items: [{ type: 'native_lesson' }],
  });
  const enrollmentId = await db.grant(courseId, learner.lmsUserId);
  // The certificate the completion issued, before its document: what the event is about.
  await sql(
    platform,
    `INSERT INTO lms.lms_certificates (id, enrollment_id, course_id, learner_lms_user_id, status, verification_code, issued_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'issued', 'PACT-0001', now(), now(), now())`,
    [certificateId, enrollmentId, courseId, learner.lmsUserId],
  );

  await pact('lms-certificates', 'lms')
    .addAsynchronousInteraction()
    .given('an lms.course.completed event was published')
    .expectsToReceive('an lms.course.completed event for a completed enrollment', (m) =>
      m.withJSONContent({
        id: ulid('01J9Z8X7W6V5T4S3R2Q1P0EV07'),
        type: 'lms.course.completed',
        occurredAt: isoDateTime(),
        source: 'lms',
        data: {
          // The renderer reads only the certificate; these say what it is for.
          enrollmentId: ulid('01J9Z8X7W6V5T4S3R2Q1P0ENR2'),
          courseId: ulid('01J9Z8X7W6V5T4S3R2Q1P0CRS2'),
          courseTitle: string('Grouting'),
          learnerLmsUserId: ulid('01J9Z8X7W6V5T4S3R2Q1P0LRN2'),
          from: 'active',
          to: 'completed',
          certificateId: ulid(certificateId),
        },
      }),
    )
    .executeTest(async (message) => {
      const event = message.contents.content as unknown as PlatformEvent;
      const sequelize = createSequelize(platform.databaseUrl, 'lms', 1);
      t.teardown(() => sequelize.close());
      const lms = createEventRuntime(platform.databaseUrl, captureLogs().logger).forService('lms', 'lms', sequelize);
      await sequelize.transaction((transaction) => lms.publish(transaction, 'lms.course.completed', event.data));
      await eventually(
        'the certificate has its document',
        async () =>
          (
            await sql<{ asset_id: string | null }>(
              platform,
              'SELECT asset_id FROM lms.lms_certificates WHERE id = $1',
              [certificateId],
            )
          )[0]!.asset_id !== null,
      );
      const [stored] = await sql<{ asset_id: string }>(
        platform,
        'SELECT asset_id FROM lms.lms_certificates WHERE id = $1',
        [certificateId],
      );
      const [asset] = await sql<{ mime_type: string; owner_user_id: string }>(
        platform,
        'SELECT mime_type, owner_user_id FROM ol.storage_assets WHERE id = $1',
        [stored!.asset_id],
      );
      t.deepEqual(asset, { mime_type: 'application/pdf', owner_user_id: learner.userId });
    });
});
