import test from 'ava';
import { lms, lmsLearner, type LmsPerson } from '../helpers/lms.ts';
import { lmsCourse, lmsDatabase, learningPlatform, stopLearning } from '../helpers/lms-learning.ts';
import { sql, type TestPlatform } from '../helpers/platform.ts';

// Native quizzes: the paper without answers, attempts with their limit, scoring on submit, and the
// outcome as the item's progress (a pass completing the course when it is the last item).
let platform: TestPlatform;
let db: ReturnType<typeof lmsDatabase>;
let author: LmsPerson;

test.before(async () => ({ platform, db, person: author } = await learningPlatform(lmsLearner)));
test.after.always(() => stopLearning(platform, db));

const quiz = {
  passPercent: 60,
  maxAttempts: 2,
  questions: [
    {
      id: 'q1',
      prompt: 'Grout goes',
      choices: [
        { id: 'a', text: 'between tiles', correct: true },
        { id: 'b', text: 'under tiles' },
      ],
    },
    {
      id: 'q2',
      prompt: 'A spacer keeps',
      choices: [
        { id: 'a', text: 'joints even', correct: true },
        { id: 'b', text: 'tiles warm' },
      ],
    },
  ],
};

async function enrolledInQuiz(options: { lockedBehindLesson?: boolean } = {}) {
  const learner = await lmsLearner(platform);
  const items = options.lockedBehindLesson
    ? [{ type: 'native_lesson' as const }, { type: 'quiz' as const, quiz }]
    : [{ type: 'quiz' as const, quiz }];
  const course = await lmsCourse(db.sequelize, {
    createdBy: author.lmsUserId,
    items,
    requires: options.lockedBehindLesson ? { 1: [0] } : {},
  });
  const enrollmentId = await db.grant(course.courseId, learner.lmsUserId);
  const itemId = course.itemIds.at(-1)!;
  return { learner, enrollmentId, itemId, base: `/enrollments/${enrollmentId}/items/${itemId}`, ...course };
}

test('the paper has the questions and choices but not which choice is correct', async (t) => {
  const { learner, base, itemId } = await enrolledInQuiz();
  const res = await lms(platform, learner, 'GET', `${base}/assessment`);
  t.is(res.status, 200);
  t.like(res.body.data, { itemId, passPercent: 60, maxAttempts: 2, attemptsUsed: 0 });
  t.false(JSON.stringify(res.body.data).includes('correct'));
});

test('a submitted attempt is scored: a fail marks the quiz failed, a later pass completes it and the course', async (t) => {
  const { learner, base, enrollmentId, itemId } = await enrolledInQuiz();
  const first = await lms(platform, learner, 'POST', `${base}/attempts`);
  t.is(first.status, 201);
  t.like(first.body.data, { itemId, status: 'in_progress', scorePercent: null, passed: null });
  const reopened = await lms(platform, learner, 'POST', `${base}/attempts`);
  t.is(reopened.body.data.id, first.body.data.id, 'starting again while one is open answers the open attempt');
  const failed = await lms(platform, learner, 'POST', `${base}/attempts/${first.body.data.id}/submit`, {
    answers: [
      { questionId: 'q1', choiceId: 'a' },
      { questionId: 'q2', choiceId: 'b' },
    ],
  });
  t.is(failed.status, 200);
  t.like(failed.body.data.attempt, { status: 'submitted', scorePercent: 50, passed: false });
  t.like(failed.body.data.progress.items[0], { itemId, status: 'failed', scorePercent: 50 });
  const twice = await lms(platform, learner, 'POST', `${base}/attempts/${first.body.data.id}/submit`, { answers: [] });
  t.is(twice.status, 409);
  t.is(twice.body.error.code, 'lms.assessment.already_submitted');

  const second = (await lms(platform, learner, 'POST', `${base}/attempts`)).body.data;
  const passed = await lms(platform, learner, 'POST', `${base}/attempts/${second.id}/submit`, {
    answers: [
      { questionId: 'q1', choiceId: 'a' },
      { questionId: 'q2', choiceId: 'a' },
    ],
  });
  t.like(passed.body.data.attempt, { scorePercent: 100, passed: true });
  t.like(passed.body.data.progress, { enrollmentStatus: 'completed', percentComplete: 100 });
  t.like(passed.body.data.progress.items[0], { status: 'completed', scorePercent: 100 });
  const read = await lms(platform, learner, 'GET', `${base}/attempts/${second.id}`);
  t.like(read.body.data, { id: second.id, status: 'submitted', scorePercent: 100, passed: true });
  t.is(
    (
      await sql(
        platform,
        `SELECT 1 FROM lms.outbox WHERE type = 'lms.course.completed' AND data->>'enrollmentId' = $1`,
        [enrollmentId],
      )
    ).length,
    1,
  );
});

test("no attempt beyond the quiz's limit: 409 lms.assessment.attempts_exhausted", async (t) => {
  const { learner, base } = await enrolledInQuiz();
  for (let i = 0; i < 2; i++) {
    const attempt = (await lms(platform, learner, 'POST', `${base}/attempts`)).body.data;
    await lms(platform, learner, 'POST', `${base}/attempts/${attempt.id}/submit`, {
      answers: [{ questionId: 'q1', choiceId: 'b' }],
    });
  }
  const third = await lms(platform, learner, 'POST', `${base}/attempts`);
  t.is(third.status, 409);
  t.is(third.body.error.code, 'lms.assessment.attempts_exhausted');
  t.is((await lms(platform, learner, 'GET', `${base}/assessment`)).body.data.attemptsUsed, 2);
});

test('an answer to a question or with a choice the quiz does not have is 422 and submits nothing', async (t) => {
  const { learner, base } = await enrolledInQuiz();
  const attempt = (await lms(platform, learner, 'POST', `${base}/attempts`)).body.data;
  const res = await lms(platform, learner, 'POST', `${base}/attempts/${attempt.id}/submit`, {
    answers: [
      { questionId: 'q9', choiceId: 'a' },
      { questionId: 'q1', choiceId: 'z' },
    ],
  });
  t.is(res.status, 422);
  t.deepEqual(
    res.body.error.details.map((d: { field: string }) => d.field),
    ['body.answers[0].questionId', 'body.answers[1].choiceId'],
  );
  t.is((await lms(platform, learner, 'GET', `${base}/attempts/${attempt.id}`)).body.data.status, 'in_progress');
});

test('a locked quiz cannot be read or attempted: 409 lms.sequencing.locked', async (t) => {
  const { learner, base } = await enrolledInQuiz({ lockedBehindLesson: true });
  for (const [method, path] of [
    ['GET', `${base}/assessment`],
    ['POST', `${base}/attempts`],
  ] as const) {
    const res = await lms(platform, learner, method, path);
    t.is(res.status, 409);
    t.is(res.body.error.code, 'lms.sequencing.locked');
  }
});

test("another learner cannot take someone's quiz: 403 auth.out_of_scope", async (t) => {
  const { base } = await enrolledInQuiz();
  const other = await lmsLearner(platform);
  const res = await lms(platform, other, 'POST', `${base}/attempts`);
  t.is(res.status, 403);
  t.is(res.body.error.code, 'auth.out_of_scope');
});
