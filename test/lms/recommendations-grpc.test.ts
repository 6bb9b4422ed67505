import test from 'ava';
import { status } from '@grpc/grpc-js';
import { callUnary, closeGrpcClients } from '../../server/platform/grpc/client.ts';
import { GrpcCallError } from '../../server/platform/grpc/errors.ts';
import { lmsLearner } from '../helpers/lms.ts';
import { lmsCourse, lmsDatabase } from '../helpers/lms-learning.ts';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// lms.v1.RecommendationsService on the LMS's own gRPC port: published courses ranked for the gaps of
// a CAP application, behind the platform's service key.
let platform: TestPlatform;
let db: ReturnType<typeof lmsDatabase>;
const ids: Record<string, string> = {};

test.before(async () => {
  platform = await startTestPlatform();
  db = lmsDatabase(platform);
  const author = (await lmsLearner(platform)).lmsUserId;
  const course = async (
    name: string,
    title: string,
    capLinkage: Record<string, string>,
    status: 'published' | 'draft' = 'published',
  ) => {
    ids[name] = (
      await lmsCourse(db.sequelize, {
        createdBy: author,
        title,
        status,
        capLinkage,
        items: [{ type: 'native_lesson' }],
      })
    ).courseId;
  };
  await course('unit', 'Setting out a floor', {
    sectorId: 'construction',
    tradeId: 'tiling',
    unitId: 'unit-setting-out',
  });
  await course('label', 'Grouting and sealing joints', { sectorId: 'construction', tradeId: 'masonry' });
  await course('trade', 'Tiling tools', { sectorId: 'construction', tradeId: 'tiling' });
  await course('sector', 'Site safety', { sectorId: 'construction' });
  await course(
    'draft',
    'Setting out, the draft',
    { sectorId: 'construction', tradeId: 'tiling', unitId: 'unit-setting-out' },
    'draft',
  );
  await course('other', 'Bread baking', { sectorId: 'hospitality', tradeId: 'baking' });
});
test.after.always(async () => {
  closeGrpcClients();
  await db?.close();
  await platform?.stop();
});

const recommend = (request: object, serviceKey = platform.config.serviceApiKey) =>
  callUnary<{
    provider: string;
    courses: Array<{ id: string; rank: number; explanation: string; url: string; trade_id: string }>;
  }>(platform.urls['grpc-lms']!, serviceKey, 'lms.v1.RecommendationsService.RecommendCourses', request);

test('published courses are ranked: a missing unit first (by id or title), then the trade, then the sector; drafts and other trades never', async (t) => {
  const res = await recommend({
    application_id: 'app-1',
    trade_id: 'tiling',
    sector_id: 'construction',
    gap_units: [
      { unit_id: 'unit-setting-out', label: 'Setting out' },
      { unit_id: 'unit-grout', label: 'Grouting' },
    ],
  });
  t.is(res.provider, 'lms-catalogue');
  t.deepEqual(
    res.courses.map((c) => c.id),
    [ids.unit, ids.label, ids.trade, ids.sector],
  );
  t.deepEqual(
    res.courses.map((c) => c.rank),
    [1, 2, 3, 4],
  );
  t.regex(res.courses[0]!.explanation, /Setting out/);
  t.is(res.courses[2]!.explanation, 'A course of your trade.');
  t.is(res.courses[0]!.url, `${platform.url('/v1/lms')}/courses/${ids.unit}`);
  t.is(res.courses[0]!.trade_id, 'tiling');
});

test('limit caps the list', async (t) => {
  const res = await recommend({ trade_id: 'tiling', sector_id: 'construction', limit: 2 });
  t.is(res.courses.length, 2);
});

test('a request naming no trade, sector or unit is INVALID_ARGUMENT', async (t) => {
  const err = await t.throwsAsync(recommend({ application_id: 'app-1' }));
  t.is((err as GrpcCallError).code, status.INVALID_ARGUMENT);
  t.regex((err as GrpcCallError).details, /trade_id, sector_id or gap_units is required/);
});

test('a call without the service key is UNAUTHENTICATED', async (t) => {
  const err = await t.throwsAsync(recommend({ trade_id: 'tiling' }, 'wrong-key'));
  t.true([status.UNAUTHENTICATED, status.PERMISSION_DENIED].includes((err as GrpcCallError).code));
});
