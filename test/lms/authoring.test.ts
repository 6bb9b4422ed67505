import test from 'ava';
import { eventually, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { lms, lmsInstructor, lmsLearner, lmsStaff, onboard, type LmsPerson } from '../helpers/lms.ts';
import { latestMail, signUp } from '../helpers/users.ts';
import { uploadSamplePackage } from '../helpers/lms-learning.ts';

// Authoring, instructors and the catalogue over real HTTP, with people onboarded through the LMS.
let platform: TestPlatform;
let admin: LmsPerson;
let owner: LmsPerson;
let learner: LmsPerson;
test.before(async () => {
  platform = await startTestPlatform();
  admin = await lmsStaff(platform, 'admin');
  [owner, learner] = await Promise.all([lmsInstructor(platform, admin), lmsLearner(platform)]);
});
test.after.always(async () => {
  await platform?.stop();
});

const ngn = (minor: string) => ({ amountMinorUnits: minor, currency: 'NGN' });

/** A draft course by `author` with one module holding a lesson, a quiz and a SCORM item, all complete. */
async function completeCourse(author: LmsPerson, title = 'Wall tiling') {
  const course = (
    await lms(platform, author, 'POST', '/authoring/courses', {
      title,
      price: ngn('1500000'),
      capLinkage: { tradeId: 'trade-tiling' },
    })
  ).body.data;
  const module = (
    await lms(platform, author, 'POST', `/authoring/courses/${course.id}/modules`, { title: 'Setting out' })
  ).body.data;
  const items = `/authoring/courses/${course.id}/modules/${module.id}/items`;
  const lesson = (
    await lms(platform, author, 'POST', items, {
      type: 'native_lesson',
      title: 'Tools',
      body: { schemaVersion: 1, html: '<p>Trowels</p>' },
    })
  ).body.data;
  const quiz = (
    await lms(platform, author, 'POST', items, {
      type: 'quiz',
      title: 'Check',
      quiz: {
        passPercent: 50,
        questions: [
          {
            id: 'q1',
            prompt: 'Grout goes',
            choices: [
              { id: 'a', text: 'between tiles', correct: true },
              { id: 'b', text: 'under tiles' },
            ],
          },
        ],
      },
    })
  ).body.data;
  const scorm = (
    await lms(platform, author, 'POST', items, {
      type: 'scorm_package',
      title: 'Safety',
      packageAssetId: await uploadSamplePackage(platform, author),
    })
  ).body.data;
  return { course, module, lesson, quiz, scorm };
}

test('authoring needs a completed instructor or staff onboarding: a learner is 403 lms.onboarding.incomplete', async (t) => {
  for (const [method, path] of [
    ['GET', '/authoring/courses'],
    ['POST', '/authoring/courses'],
  ] as const) {
    const res = await lms(platform, learner, method, path, method === 'POST' ? { title: 'Mine' } : undefined);
    t.is(res.status, 403, path);
    t.is(res.body.error.code, 'lms.onboarding.incomplete');
  }
});

test('a new course is a draft owned by its creator, hidden from the catalogue until published', async (t) => {
  const created = await lms(platform, owner, 'POST', '/authoring/courses', { title: 'Draft only' });
  t.is(created.status, 201);
  t.like(created.body.data, { title: 'Draft only', status: 'draft', price: ngn('0'), publishedAt: null });
  const authoring = await lms(platform, owner, 'GET', `/authoring/courses/${created.body.data.id}`);
  t.deepEqual(authoring.body.data.instructors, [{ lmsUserId: owner.lmsUserId, role: 'owner' }]);
  t.is((await lms(platform, learner, 'GET', `/courses/${created.body.data.id}`)).status, 404);
  t.is((await lms(platform, learner, 'GET', `/courses/${created.body.data.id}/outline`)).status, 404);
  t.false(
    (await lms(platform, learner, 'GET', '/courses?limit=100')).body.data.some(
      (c: { id: string }) => c.id === created.body.data.id,
    ),
  );
  t.is(
    (await lms(platform, owner, 'GET', `/courses/${created.body.data.id}`)).status,
    200,
    'its instructor sees the draft',
  );
});

test('a new course, module or item without its title (or an item without its type) is 422 naming the field', async (t) => {
  const course = await lms(platform, owner, 'POST', '/authoring/courses', { description: 'no title' });
  t.is(course.status, 422);
  t.deepEqual(course.body.error.details, [{ field: 'body.title', issue: 'is required for a new course' }]);
  const { course: c, module } = await completeCourse(owner);
  t.is((await lms(platform, owner, 'POST', `/authoring/courses/${c.id}/modules`, {})).status, 422);
  const item = await lms(platform, owner, 'POST', `/authoring/courses/${c.id}/modules/${module.id}/items`, {
    title: 'x',
  });
  t.is(item.status, 422);
  t.deepEqual(
    item.body.error.details.map((d: { field: string }) => d.field),
    ['body.type'],
  );
  t.is(
    (
      await lms(platform, owner, 'POST', `/authoring/courses/${c.id}/modules/${module.id}/items`, {
        type: 'podcast',
        title: 'x',
      })
    ).status,
    422,
  );
});

test('publishing is refused with 409 lms.course.not_publishable naming each problem: no modules, an empty module, items without content', async (t) => {
  const empty = (await lms(platform, owner, 'POST', '/authoring/courses', { title: 'Empty' })).body.data;
  const refused = await lms(platform, owner, 'POST', `/authoring/courses/${empty.id}/publish`);
  t.is(refused.status, 409);
  t.is(refused.body.error.code, 'lms.course.not_publishable');
  t.deepEqual(refused.body.error.details, [{ field: 'modules', issue: 'the course has no modules' }]);

  const module = (await lms(platform, owner, 'POST', `/authoring/courses/${empty.id}/modules`, { title: 'One' })).body
    .data;
  const bare = (await lms(platform, owner, 'POST', `/authoring/courses/${empty.id}/modules`, { title: 'Two' })).body
    .data;
  const items = `/authoring/courses/${empty.id}/modules/${module.id}/items`;
  const lesson = (await lms(platform, owner, 'POST', items, { type: 'native_lesson', title: 'Lesson' })).body.data;
  const video = (await lms(platform, owner, 'POST', items, { type: 'video', title: 'Video' })).body.data;
  const scorm = (await lms(platform, owner, 'POST', items, { type: 'scorm_package', title: 'Package' })).body.data;
  const quiz = (
    await lms(platform, owner, 'POST', items, {
      type: 'quiz',
      title: 'Quiz',
      quiz: { questions: [{ id: 'q1', prompt: '?', choices: [{ id: 'a', text: 'A' }] }] },
    })
  ).body.data;
  const again = await lms(platform, owner, 'POST', `/authoring/courses/${empty.id}/publish`);
  t.is(again.status, 409);
  t.deepEqual(again.body.error.details, [
    { field: `modules.${bare.id}`, issue: 'module "Two" has no items' },
    { field: `items.${lesson.id}`, issue: 'item "Lesson" is a lesson without a body' },
    { field: `items.${video.id}`, issue: 'item "Video" is a video without a media asset' },
    { field: `items.${scorm.id}`, issue: 'item "Package" is a SCORM item without a package' },
    { field: `items.${quiz.id}`, issue: 'item "Quiz" is a quiz whose question q1 has no correct choice' },
  ]);
  t.is((await lms(platform, owner, 'GET', `/authoring/courses/${empty.id}`)).body.data.status, 'draft');
});

test('a complete course publishes into the catalogue with its outline; unpublishing takes it out again', async (t) => {
  const { course, module, lesson, quiz, scorm } = await completeCourse(owner, 'Floor tiling for beginners');
  const published = await lms(platform, owner, 'POST', `/authoring/courses/${course.id}/publish`);
  t.is(published.status, 200);
  t.is(published.body.data.status, 'published');
  t.truthy(published.body.data.publishedAt);

  const listed = await lms(platform, learner, 'GET', '/courses?q=floor%20tiling&tradeId=trade-tiling');
  t.deepEqual(
    listed.body.data.map((c: { id: string }) => c.id),
    [course.id],
  );
  t.like(listed.body.meta.pagination, { hasMore: false, nextCursor: null });
  t.deepEqual((await lms(platform, learner, 'GET', '/courses?q=floor%20tiling&tradeId=trade-other')).body.data, []);
  const detail = await lms(platform, learner, 'GET', `/courses/${course.id}`);
  t.like(detail.body.data, { id: course.id, price: ngn('1500000'), capLinkage: { tradeId: 'trade-tiling' } });
  const outline = await lms(platform, learner, 'GET', `/courses/${course.id}/outline`);
  t.deepEqual(outline.body.data.modules, [
    {
      id: module.id,
      title: 'Setting out',
      order: 1,
      optional: false,
      items: [
        { id: lesson.id, type: 'native_lesson', title: 'Tools', order: 1, required: true },
        { id: quiz.id, type: 'quiz', title: 'Check', order: 2, required: true },
        { id: scorm.id, type: 'scorm_package', title: 'Safety', order: 3, required: true },
      ],
    },
  ]);

  t.is((await lms(platform, owner, 'POST', `/authoring/courses/${course.id}/unpublish`)).body.data.status, 'draft');
  t.is((await lms(platform, learner, 'GET', `/courses/${course.id}`)).status, 404);
});

test("an item reads back with everything authored in it (quiz answers, package) for the course's instructors and staff only", async (t) => {
  const { course, lesson, quiz, scorm } = await completeCourse(owner);
  const read = (who: LmsPerson, itemId: string) =>
    lms(platform, who, 'GET', `/authoring/courses/${course.id}/items/${itemId}`);
  t.like((await read(owner, lesson.id)).body.data, {
    id: lesson.id,
    type: 'native_lesson',
    body: { html: '<p>Trowels</p>' },
  });
  t.deepEqual((await read(owner, quiz.id)).body.data.quiz.questions[0].choices[0], {
    id: 'a',
    text: 'between tiles',
    correct: true,
  });
  t.like((await read(admin, scorm.id)).body.data, {
    type: 'scorm_package',
    packageAssetId: scorm.packageAssetId,
    scoHref: scorm.scoHref,
  });
  t.is((await read(learner, lesson.id)).status, 403);
  t.is(
    (
      await lms(
        platform,
        await lmsInstructor(platform, admin),
        'GET',
        `/authoring/courses/${course.id}/items/${lesson.id}`,
      )
    ).body.error?.code,
    'auth.out_of_scope',
  );
  t.is((await read(owner, scorm.id.replace(/.$/, scorm.id.endsWith('0') ? '1' : '0'))).status, 404);
});

test("only a course's instructors and staff author it: another instructor is 403 auth.out_of_scope", async (t) => {
  const { course, module, lesson } = await completeCourse(owner);
  const other = await lmsInstructor(platform, admin);
  for (const [method, path, body] of [
    ['GET', `/authoring/courses/${course.id}`],
    ['PATCH', `/authoring/courses/${course.id}`, { title: 'Mine now' }],
    ['POST', `/authoring/courses/${course.id}/modules`, { title: 'Extra' }],
    ['PATCH', `/authoring/courses/${course.id}/modules/${module.id}`, { title: 'Renamed' }],
    ['DELETE', `/authoring/courses/${course.id}/items/${lesson.id}`],
    ['PUT', `/authoring/courses/${course.id}/sequencing`, { prerequisites: [] }],
    ['POST', `/authoring/courses/${course.id}/publish`],
    ['GET', `/authoring/courses/${course.id}/instructors`],
  ] as const) {
    const res = await lms(platform, other, method, path, body);
    t.is(res.status, 403, `${method} ${path}`);
    t.is(res.body.error.code, 'auth.out_of_scope');
  }
  t.false(
    (await lms(platform, other, 'GET', '/authoring/courses?limit=100')).body.data.some(
      (c: { id: string }) => c.id === course.id,
    ),
  );
  t.true(
    (await lms(platform, admin, 'GET', '/authoring/courses?limit=100')).body.data.some(
      (c: { id: string }) => c.id === course.id,
    ),
    'staff see every course',
  );
  t.is(
    (await lms(platform, admin, 'PATCH', `/authoring/courses/${course.id}`, { description: 'Checked by staff' }))
      .status,
    200,
  );
  t.is(
    (await lms(platform, admin, 'POST', `/authoring/courses/${course.id}/publish`)).status,
    200,
    'staff publish any course',
  );
});

test('a co-instructor edits but does not publish; the owner cannot be removed; a learner cannot be made an instructor', async (t) => {
  const { course } = await completeCourse(owner);
  const colleague = await lmsInstructor(platform, admin);
  const added = await lms(platform, owner, 'POST', `/authoring/courses/${course.id}/instructors`, {
    lmsUserId: colleague.lmsUserId,
    role: 'co_instructor',
  });
  t.is(added.status, 201);
  t.deepEqual(added.body.data, { lmsUserId: colleague.lmsUserId, role: 'co_instructor' });
  const twice = await lms(platform, owner, 'POST', `/authoring/courses/${course.id}/instructors`, {
    lmsUserId: colleague.lmsUserId,
    role: 'co_instructor',
  });
  t.is(twice.body.error.code, 'lms.instructor.conflict');
  const notInstructor = await lms(platform, owner, 'POST', `/authoring/courses/${course.id}/instructors`, {
    lmsUserId: learner.lmsUserId,
    role: 'co_instructor',
  });
  t.is(notInstructor.status, 409);
  t.is(notInstructor.body.error.code, 'lms.instructor.conflict');

  t.is(
    (await lms(platform, colleague, 'PATCH', `/authoring/courses/${course.id}`, { title: 'Better title' })).status,
    200,
  );
  const publish = await lms(platform, colleague, 'POST', `/authoring/courses/${course.id}/publish`);
  t.is(publish.status, 403);
  t.is(publish.body.error.code, 'auth.out_of_scope');
  t.is(
    (
      await lms(platform, colleague, 'POST', `/authoring/courses/${course.id}/instructors`, {
        lmsUserId: admin.lmsUserId,
        role: 'co_instructor',
      })
    ).status,
    403,
  );

  const removeOwner = await lms(
    platform,
    admin,
    'DELETE',
    `/authoring/courses/${course.id}/instructors/${owner.lmsUserId}`,
  );
  t.is(removeOwner.status, 409);
  t.is(removeOwner.body.error.code, 'lms.instructor.sole_owner');
  t.is(
    (await lms(platform, owner, 'DELETE', `/authoring/courses/${course.id}/instructors/${colleague.lmsUserId}`)).status,
    200,
  );
  t.is((await lms(platform, colleague, 'GET', `/authoring/courses/${course.id}`)).status, 403);
});

test("sequencing names only the course's modules and items, without circles; removing an item takes it out of the graph", async (t) => {
  const { course, module, lesson, quiz, scorm } = await completeCourse(owner);
  const path = `/authoring/courses/${course.id}/sequencing`;
  const unknown = await lms(platform, owner, 'PUT', path, {
    prerequisites: [{ targetId: quiz.id, requires: ['nope'] }],
  });
  t.is(unknown.status, 422);
  t.deepEqual(unknown.body.error.details, [
    { field: 'body.prerequisites[0].requires', issue: 'nope is not a module or item of this course' },
  ]);
  const circle = await lms(platform, owner, 'PUT', path, {
    prerequisites: [
      { targetId: quiz.id, requires: [scorm.id] },
      { targetId: scorm.id, requires: [quiz.id] },
    ],
  });
  t.is(circle.status, 422);
  const graph = {
    prerequisites: [
      { targetId: quiz.id, requires: [lesson.id] },
      { targetId: scorm.id, requires: [quiz.id, lesson.id] },
    ],
  };
  const saved = await lms(platform, owner, 'PUT', path, graph);
  t.is(saved.status, 200);
  t.deepEqual(saved.body.data, graph);
  t.is((await lms(platform, owner, 'DELETE', `/authoring/courses/${course.id}/items/${lesson.id}`)).status, 200);
  t.deepEqual((await lms(platform, owner, 'GET', `/authoring/courses/${course.id}`)).body.data.sequencing, {
    prerequisites: [{ targetId: scorm.id, requires: [quiz.id] }],
  });
  const removed = await lms(platform, owner, 'DELETE', `/authoring/courses/${course.id}/modules/${module.id}`);
  t.is(removed.status, 200);
  t.deepEqual((await lms(platform, owner, 'GET', `/authoring/courses/${course.id}`)).body.data.outline.modules, []);
});

test('instructors join by a staff invite only: no invite is 403 lms.invite.required, a learner cannot invite, an address is invited once', async (t) => {
  const newcomer = await signUp(platform);
  const uninvited = await lms(platform, newcomer, 'POST', '/onboarding/start', { persona: 'instructor' });
  t.is(uninvited.body.error.code, 'lms.invite.required');
  const byLearner = await lms(platform, learner, 'POST', '/instructors/invites', { email: newcomer.email });
  t.is(byLearner.status, 403);
  t.is(byLearner.body.error.code, 'auth.out_of_scope');
  t.is((await lms(platform, owner, 'GET', '/instructors/invites')).status, 403, 'instructors do not see invites');

  const invite = await lms(platform, admin, 'POST', '/instructors/invites', { email: newcomer.email.toUpperCase() });
  t.is(invite.status, 201);
  t.like(invite.body.data, { kind: 'instructor', email: newcomer.email, status: 'pending', acceptedAt: null });
  await eventually(
    'the invite is mailed to the address',
    async () => (await latestMail(platform, newcomer.email)).subject === 'You are invited to the LMS as an instructor',
  );
  const again = await lms(platform, admin, 'POST', '/instructors/invites', { email: newcomer.email });
  t.is(again.status, 409);
  t.is(again.body.error.code, 'lms.invite.duplicate');
  t.is((await lms(platform, newcomer, 'GET', '/me')).body.data.instructorStatus, 'invited');

  const instructor = await onboard(platform, newcomer, 'instructor');
  const me = (await lms(platform, instructor, 'GET', '/me')).body.data;
  t.is(me.instructorStatus, 'active');
  t.deepEqual(me.capabilities, ['course.content.edit', 'course.create', 'course.publish']);
  const listed = (await lms(platform, admin, 'GET', '/instructors/invites?limit=100')).body.data.find(
    (i: { id: string }) => i.id === invite.body.data.id,
  );
  t.is(listed.status, 'accepted');
  t.is(
    (await lms(platform, admin, 'POST', '/instructors/invites', { email: newcomer.email })).body.error.code,
    'lms.invite.duplicate',
    'already an instructor',
  );
});
