import { QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { conflict, notFound, validationFailed } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import { defineLifecycle, lifecycleWriter, tableStore } from '../../../platform/lifecycle.ts';
import type { CourseItem, Quiz } from '../../catalogue/index.ts';
import type { Enrollment } from '../enrollments/models.ts';
import type { Player } from '../player/service.ts';

/** An attempt at a quiz, as data: started `in_progress` by the learner (one open at a time), `submitted` once, scored. */
export const attemptLifecycle = defineLifecycle({
  subject: 'attempt',
  statuses: ['in_progress', 'submitted'],
  movers: ['learner'],
  moves: {
    start: { from: [null], to: 'in_progress', by: ['learner'] },
    submit: { from: ['in_progress'], to: 'submitted', by: ['learner'] },
  },
});

interface AttemptRow {
  id: string;
  item_id: string;
  status: 'in_progress' | 'submitted';
  score_percent: number | null;
  passed: boolean | null;
  started_at: Date;
  submitted_at: Date | null;
}

const attemptView = (row: AttemptRow) => ({
  id: row.id,
  itemId: row.item_id,
  status: row.status,
  scorePercent: row.score_percent,
  passed: row.passed,
  startedAt: row.started_at.toISOString(),
  submittedAt: row.submitted_at?.toISOString() ?? null,
});

/** The score of a set of answers: the share of questions answered with a correct choice (one answer per question counts). */
export function scoreOf(quiz: Quiz, answers: Array<{ questionId: string; choiceId: string }>): number {
  if (quiz.questions.length === 0) return 0;
  const chosen = new Map(answers.map((a) => [a.questionId, a.choiceId]));
  const right = quiz.questions.filter((q) => q.choices.some((c) => c.correct && c.id === chosen.get(q.id))).length;
  return Math.round((100 * right) / quiz.questions.length);
}

export type Assessments = ReturnType<typeof createAssessments>;

/**
 * Native quizzes for learners: the paper without its answers, attempts (one open at a time, no more
 * than the quiz allows), and submitting, which scores the answers against the quiz and records the
 * outcome as the item's progress (a pass completes it) in the same transaction.
 */
export function createAssessments(deps: { sequelize: Sequelize; player: Player }) {
  const { sequelize, player } = deps;
  const select = <T extends object>(sql: string, bind: unknown[], transaction?: Transaction) =>
    sequelize.query<T>(sql, { type: QueryTypes.SELECT, bind, transaction });
  const alreadySubmitted = () =>
    conflict('lms.assessment.already_submitted', 'This attempt was submitted already: start a new one.');
  const attempts = lifecycleWriter(attemptLifecycle, {
    store: tableStore<AttemptRow>('lms.lms_assessment_attempts'),
    refuse: alreadySubmitted,
  });

  /** The learner's enrollment and the quiz item, checked: own enrollment, entitled, a quiz, unlocked. */
  async function quizFor(
    learnerLmsUserId: string,
    enrollmentId: string,
    itemId: string,
    transaction?: Transaction,
  ): Promise<{ enrollment: Enrollment; item: CourseItem; quiz: Quiz }> {
    const enrollment = await player.ownEnrollment(learnerLmsUserId, enrollmentId, transaction, Boolean(transaction));
    const loaded = await player.rulesOf(enrollment.courseId, transaction);
    const item = loaded.items.find((i) => i.id === itemId);
    if (!item || item.type !== 'quiz' || !item.quiz) throw notFound('The course has no such quiz.');
    await player.requireEntitlement(enrollment, transaction);
    player.requireUnlocked(await player.snapshotOf(enrollment, loaded.rules, transaction), itemId);
    return { enrollment, item, quiz: item.quiz };
  }

  const attemptsUsed = async (enrollmentId: string, itemId: string, transaction?: Transaction) =>
    (
      await select<{ n: number }>(
        'SELECT count(*)::int AS n FROM lms.lms_assessment_attempts WHERE enrollment_id = $1 AND item_id = $2',
        [enrollmentId, itemId],
        transaction,
      )
    )[0]!.n;

  async function attemptOf(
    enrollmentId: string,
    itemId: string,
    attemptId: string,
    transaction?: Transaction,
    lock = false,
  ): Promise<AttemptRow> {
    const [row] = await select<AttemptRow>(
      `SELECT id, item_id, status, score_percent, passed, started_at, submitted_at FROM lms.lms_assessment_attempts WHERE id = $1 AND enrollment_id = $2 AND item_id = $3${lock ? ' FOR UPDATE' : ''}`,
      [attemptId, enrollmentId, itemId],
      transaction,
    );
    if (!row) throw notFound('No such attempt.');
    return row;
  }

  return {
    async paper(learnerLmsUserId: string, enrollmentId: string, itemId: string) {
      const { quiz } = await quizFor(learnerLmsUserId, enrollmentId, itemId);
      return {
        itemId,
        passPercent: quiz.passPercent,
        maxAttempts: quiz.maxAttempts ?? null,
        attemptsUsed: await attemptsUsed(enrollmentId, itemId),
        // The learner's paper: which choice is correct stays with the LMS.
        questions: quiz.questions.map((q) => ({
          id: q.id,
          prompt: q.prompt,
          choices: q.choices.map((c) => ({ id: c.id, text: c.text })),
        })),
      };
    },

    /** Starts an attempt, or answers the one still open; 409 lms.assessment.attempts_exhausted past the quiz's limit. */
    async start(learnerLmsUserId: string, enrollmentId: string, itemId: string) {
      return sequelize.transaction(async (transaction) => {
        const { quiz } = await quizFor(learnerLmsUserId, enrollmentId, itemId, transaction);
        const [open] = await select<AttemptRow>(
          `SELECT id, item_id, status, score_percent, passed, started_at, submitted_at FROM lms.lms_assessment_attempts WHERE enrollment_id = $1 AND item_id = $2 AND status = 'in_progress'`,
          [enrollmentId, itemId],
          transaction,
        );
        if (open) return attemptView(open);
        const used = await attemptsUsed(enrollmentId, itemId, transaction);
        if (quiz.maxAttempts && used >= quiz.maxAttempts) {
          throw conflict(
            'lms.assessment.attempts_exhausted',
            `All ${quiz.maxAttempts} attempts at this quiz are used.`,
          );
        }
        const id = newId();
        try {
          await attempts.create(
            transaction,
            'start',
            { id, enrollment_id: enrollmentId, item_id: itemId, started_at: new Date() },
            { by: 'learner' },
          );
        } catch (err) {
          if (err instanceof UniqueConstraintError)
            throw conflict(
              'lms.assessment.attempt_open',
              'An attempt at this quiz is being started already: fetch it again.',
            );
          throw err;
        }
        return attemptView(await attemptOf(enrollmentId, itemId, id, transaction));
      });
    },

    async attempt(learnerLmsUserId: string, enrollmentId: string, itemId: string, attemptId: string) {
      await player.ownEnrollment(learnerLmsUserId, enrollmentId);
      return attemptView(await attemptOf(enrollmentId, itemId, attemptId));
    },

    /** Scores the answers, closes the attempt and records the outcome as the item's progress. */
    async submit(
      learnerLmsUserId: string,
      enrollmentId: string,
      itemId: string,
      attemptId: string,
      answers: Array<{ questionId: string; choiceId: string }>,
    ) {
      return sequelize.transaction(async (transaction) => {
        const { enrollment, quiz } = await quizFor(learnerLmsUserId, enrollmentId, itemId, transaction);
        const attempt = await attemptOf(enrollmentId, itemId, attemptId, transaction, true);
        if (attempt.status === 'submitted') throw alreadySubmitted();
        const questions = new Map(quiz.questions.map((q) => [q.id, q]));
        const problems = answers.flatMap((answer, i) => {
          const question = questions.get(answer.questionId);
          if (!question) return [{ field: `body.answers[${i}].questionId`, issue: 'is not a question of this quiz' }];
          if (!question.choices.some((c) => c.id === answer.choiceId))
            return [{ field: `body.answers[${i}].choiceId`, issue: 'is not a choice of this question' }];
          return [];
        });
        if (problems.length)
          throw validationFailed(problems, 'Some answers do not belong to this quiz; nothing was submitted.');
        const scorePercent = scoreOf(quiz, answers);
        const passed = scorePercent >= quiz.passPercent;
        await attempts.move(transaction, attempt, 'submit', {
          by: 'learner',
          changes: { answers: JSON.stringify(answers), score_percent: scorePercent, passed, submitted_at: new Date() },
        });
        const progress =
          enrollment.status === 'active'
            ? await player.recordAssessment(transaction, enrollment, itemId, { scorePercent, passed })
            : await player.snapshotOf(
                enrollment,
                (await player.rulesOf(enrollment.courseId, transaction)).rules,
                transaction,
              );
        return { attempt: attemptView(await attemptOf(enrollmentId, itemId, attemptId, transaction)), progress };
      });
    },
  };
}
