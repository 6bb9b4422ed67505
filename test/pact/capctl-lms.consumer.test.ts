import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MatchersV3 } from '@pact-foundation/pact';
import {
  bearer,
  capctl,
  configDir,
  email,
  errorBody,
  exampleAccessToken,
  isoDateTime,
  mayBeNull,
  mockGateway,
  pactFiles,
  runScenario,
  stepTests,
  ulid,
  type State,
} from './support.ts';

// capctl -> LMS: `capctl me --service lms`, `capctl lms course create|publish|list`, `capctl lms enroll|checkout`, `capctl lms scorm upload`, and the learner
// onboarding steps of the bundled scenarios run by capctl's scenario runner, against Pact's mock server.
// Writes pacts/capctl-lms.json.

const { eachLike, fromProviderState, like, regex, string } = MatchersV3;
const pact = pactFiles(test);
const lmsPact = () => pact('capctl', 'lms');

const learnerDraft = {
  onboardingId: ulid(),
  persona: 'learner',
  status: 'draft',
  createdAt: isoDateTime(),
  lastUpdatedAt: isoDateTime(),
};

test.serial('capctl me --service lms reads the signed-in user on the LMS', async (t) => {
  const cli = configDir(t);
  await lmsPact()
    .addInteraction()
    .given('a verified user')
    .uponReceiving("a read of the caller's LMS account")
    .withRequest('GET', '/v1/lms/me', (b) => b.headers({ Authorization: bearer() }))
    .willRespondWith(200, (b) =>
      b.jsonBody({
        success: true,
        data: { lmsUserId: ulid(), userId: ulid(), personas: [], capabilities: [], instructorStatus: null },
      }),
    )
    .executeTest(async (mock) => {
      cli.signedIn(mock.url);
      const run = await capctl(t, cli.dir, 'me', '--service', 'lms', '--json');
      t.is(run.code, 0, run.stderr);
      t.like(JSON.parse(run.stdout), { personas: [], capabilities: [] });
    });
});

test.serial('capctl run starts the learner onboarding and lists it', async (t) => {
  const lms = lmsPact();
  lms
    .addInteraction()
    .given('a verified user')
    .uponReceiving('a start of the learner onboarding')
    .withRequest('POST', '/v1/lms/onboarding/start', (b) =>
      b.headers({ Authorization: bearer() }).jsonBody({ persona: 'learner' }),
    )
    .willRespondWith(201, (b) => b.jsonBody({ success: true, data: learnerDraft }));
  await lms
    .addInteraction()
    .given('a user with an onboarding', { persona: 'learner', stage: 'started' })
    .uponReceiving("a list of the caller's onboardings")
    .withRequest('GET', '/v1/lms/onboarding/mine', (b) => b.headers({ Authorization: bearer() }))
    // A new user's onboardings: exactly the one the state started.
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: [learnerDraft] }))
    .executeTest(async (mock) => {
      await runScenario(
        t,
        await mockGateway(t, { lms: mock.url }),
        `
name: learner onboarding
steps:
  - id: start
    http: { method: POST, path: /v1/lms/onboarding/start, body: { persona: learner }, headers: { Authorization: "Bearer ${exampleAccessToken}" } }
    expect: { status: 201 }
  - id: mine
    http: { method: GET, path: /v1/lms/onboarding/mine, headers: { Authorization: "Bearer ${exampleAccessToken}" } }
    expect: { body: { "data[0].persona": learner } }
`,
      );
    });
});

// --- The other LMS steps of the learner scenario, as capctl run makes them -------------------------

const learner = (stage: 'started' | 'saved' | 'submitted'): State => [
  'a user with an onboarding',
  { persona: 'learner', stage },
];
const learnerSummary = (status: 'draft' | 'completed') => ({
  ...learnerDraft,
  status,
  ...(status === 'completed' ? { completedAt: isoDateTime() } : {}),
});
const personalDetails = { firstName: 'Ngozi', lastName: 'Eze', gender: 'Female' };
const validationFailed = {
  ...errorBody('validation.failed'),
  error: {
    ...errorBody('validation.failed').error,
    details: eachLike({ field: string('personalDetails.firstName'), issue: string('is required') }),
  },
};

stepTests(test, lmsPact, 'lms', [
  {
    rule: 'the LMS profile carries the account address',
    description: "a read of the caller's LMS profile",
    states: [['a verified user']],
    method: 'GET',
    path: '/v1/lms/me/profile',
    status: 200,
    response: {
      success: true,
      data: { lmsUserId: ulid(), email: email(), displayName: null, photoAssetId: null, photo: null },
    },
  },
  {
    rule: 'with no onboarding the list is empty',
    description: "a list of the caller's onboardings before any",
    states: [['a verified user']],
    method: 'GET',
    path: '/v1/lms/onboarding/mine',
    status: 200,
    response: { success: true, data: [] },
  },
  {
    rule: 'starting again picks up the same draft',
    description: 'a second start of the learner onboarding',
    states: [learner('started')],
    method: 'POST',
    path: '/v1/lms/onboarding/start',
    body: { persona: 'learner' },
    status: 201,
    response: { success: true, data: learnerSummary('draft') },
  },
  {
    rule: '/me lists the learner persona as a draft without capabilities',
    description: 'a read of the LMS account of a learner with a draft',
    states: [learner('started')],
    method: 'GET',
    path: '/v1/lms/me',
    status: 200,
    response: {
      success: true,
      data: {
        lmsUserId: ulid(),
        userId: ulid(),
        personas: [{ persona: 'learner', onboardingStatus: 'draft', profileId: null }],
        capabilities: [],
        instructorStatus: null,
      },
    },
  },
  {
    rule: 'a save merges the personal details into the draft',
    description: 'a save of the learner personal details',
    states: [learner('started')],
    method: 'PATCH',
    path: '/v1/lms/onboarding/learner/save',
    body: { personalDetails },
    status: 200,
    response: {
      success: true,
      data: { ...learnerSummary('draft'), data: like({ schemaVersion: 1, personalDetails }) },
    },
  },
  {
    rule: 'submitting with required fields missing is 422 naming each field',
    description: 'a submit of an incomplete learner onboarding',
    states: [learner('started')],
    method: 'POST',
    path: '/v1/lms/onboarding/learner/submit',
    status: 422,
    response: validationFailed,
  },
  {
    rule: 'an instructor-only section in a learner draft is 422',
    description: 'a save of an instructor-only section in a learner draft',
    states: [learner('started')],
    method: 'PATCH',
    path: '/v1/lms/onboarding/learner/save',
    body: { bio: 'I teach welding.' },
    status: 422,
    response: validationFailed,
  },
  {
    rule: 'the draft reads back with everything saved',
    description: 'a read of the learner onboarding',
    states: [learner('saved')],
    method: 'GET',
    path: '/v1/lms/onboarding/learner',
    status: 200,
    response: {
      success: true,
      data: {
        ...learnerSummary('draft'),
        data: like({
          schemaVersion: 1,
          contactInformation: { phoneNumber: { countryCode: '+234', number: '8031234567' } },
        }),
      },
    },
  },
  {
    rule: 'submit completes the learner onboarding',
    description: 'a submit of the learner onboarding',
    states: [learner('saved')],
    method: 'POST',
    path: '/v1/lms/onboarding/learner/submit',
    status: 200,
    response: { success: true, data: learnerSummary('completed') },
  },
  {
    rule: '/me of a learner shows the completed persona with a profile and course enrolment',
    description: 'a read of the LMS account of a learner',
    states: [learner('submitted')],
    method: 'GET',
    path: '/v1/lms/me',
    status: 200,
    response: {
      success: true,
      data: {
        lmsUserId: ulid(),
        userId: ulid(),
        personas: [{ persona: 'learner', onboardingStatus: 'completed', profileId: ulid() }],
        capabilities: ['course.enroll'],
        instructorStatus: null,
      },
    },
  },
  {
    rule: 'onboarding/mine lists the completed learner onboarding',
    description: "a list of the caller's completed onboardings",
    states: [learner('submitted')],
    method: 'GET',
    path: '/v1/lms/onboarding/mine',
    status: 200,
    // A new user's onboardings: exactly the one the state completed.
    response: { success: true, data: [learnerSummary('completed')] },
  },
  {
    rule: 'starting a completed onboarding is 409 lms.onboarding.already_completed',
    description: 'a start of a completed learner onboarding',
    states: [learner('submitted')],
    method: 'POST',
    path: '/v1/lms/onboarding/start',
    body: { persona: 'learner' },
    status: 409,
    response: errorBody('lms.onboarding.already_completed'),
  },
  {
    rule: 'saving a completed onboarding is 409 lms.onboarding.already_completed',
    description: 'a save of a completed learner onboarding',
    states: [learner('submitted')],
    method: 'PATCH',
    path: '/v1/lms/onboarding/learner/save',
    body: { personalDetails },
    status: 409,
    response: errorBody('lms.onboarding.already_completed'),
  },
  ...(['instructor', 'staff'] as const).map((persona) => ({
    rule: `the ${persona} onboarding needs an invite (403 lms.invite.required)`,
    description: `a start of the ${persona} onboarding without an invite`,
    states: [['a verified user'] as State],
    method: 'POST' as const,
    path: '/v1/lms/onboarding/start',
    body: { persona },
    status: 403,
    response: errorBody('lms.invite.required'),
  })),
]);

// --- capctl lms course create|publish|list, as instructors and learners use them --------------------

const exampleCourseId = '01J9Z8X7W6V5T4S3R2Q1P0CRSE';
const exampleModuleId = '01J9Z8X7W6V5T4S3R2Q1P0MODL';
const coursePath = (suffix: string) =>
  fromProviderState(
    `/v1/lms/authoring/courses/\${courseId}${suffix}`,
    `/v1/lms/authoring/courses/${exampleCourseId}${suffix}`,
  );
const money = (amount: string) => ({ amountMinorUnits: string(amount), currency: 'NGN' });
const course = (status: 'draft' | 'published') => ({
  id: ulid(),
  title: string('Floor tiling basics'),
  description: string(''),
  status,
  price: money('1500000'),
  completionPolicy: { minPercent: 100, requireAllRequiredItems: true, requirePassedAssessments: true },
  ...(status === 'published' ? { publishedAt: isoDateTime() } : {}),
  createdAt: isoDateTime(),
  updatedAt: isoDateTime(),
});
const summary = (status: 'draft' | 'published') => {
  const {
    completionPolicy: _policy,
    publishedAt: _published,
    createdAt: _created,
    updatedAt: _updated,
    ...rest
  } = course(status);
  return rest;
};
const catalogueItem = (status: 'draft' | 'published') => {
  const { description: _description, ...always } = summary(status);
  return always;
};
const page = { pagination: { nextCursor: null, hasMore: false, limit: like(100) } };

test.serial('capctl lms course create makes a draft course as an instructor', async (t) => {
  const cli = configDir(t);
  await lmsPact()
    .addInteraction()
    .given('an LMS instructor')
    .uponReceiving('a creation of a draft course')
    .withRequest('POST', '/v1/lms/authoring/courses', (b) =>
      b
        .headers({ Authorization: bearer() })
        .jsonBody({ title: 'Floor tiling basics', price: { amountMinorUnits: '1500000', currency: 'NGN' } }),
    )
    .willRespondWith(201, (b) => b.jsonBody({ success: true, data: course('draft') }))
    .executeTest(async (mock) => {
      cli.signedIn(mock.url);
      const run = await capctl(
        t,
        cli.dir,
        'lms',
        'course',
        'create',
        '--title',
        'Floor tiling basics',
        '--price',
        '1500000',
        '--json',
      );
      t.is(run.code, 0, run.stderr);
      t.like(JSON.parse(run.stdout), { status: 'draft', title: 'Floor tiling basics' });
    });
});

test.serial('capctl lms course publish publishes a complete course', async (t) => {
  const cli = configDir(t);
  await lmsPact()
    .addInteraction()
    .given('an LMS instructor with a course', { stage: 'complete' })
    .uponReceiving('a publication of a complete course by its owner')
    .withRequest('POST', coursePath('/publish'), (b) => b.headers({ Authorization: bearer() }))
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: course('published') }))
    .executeTest(async (mock) => {
      cli.signedIn(mock.url);
      const run = await capctl(t, cli.dir, 'lms', 'course', 'publish', exampleCourseId, '--json');
      t.is(run.code, 0, run.stderr);
      t.like(JSON.parse(run.stdout), { status: 'published' });
    });
});

test.serial(
  'capctl lms course publish of a course without modules fails with lms.course.not_publishable',
  async (t) => {
    const cli = configDir(t);
    await lmsPact()
      .addInteraction()
      .given('an LMS instructor with a course', { stage: 'empty' })
      .uponReceiving('a publication of a course without modules')
      .withRequest('POST', coursePath('/publish'), (b) => b.headers({ Authorization: bearer() }))
      .willRespondWith(409, (b) =>
        b.jsonBody({
          ...errorBody('lms.course.not_publishable'),
          error: {
            ...errorBody('lms.course.not_publishable').error,
            details: [{ field: string('modules'), issue: string('the course has no modules') }],
          },
        }),
      )
      .executeTest(async (mock) => {
        cli.signedIn(mock.url);
        const run = await capctl(t, cli.dir, 'lms', 'course', 'publish', exampleCourseId);
        t.is(run.code, 1);
        t.regex(run.stderr, /lms\.course\.not_publishable/);
      });
  },
);

test.serial("capctl lms course list reads the catalogue, and with --authoring the caller's own courses", async (t) => {
  const cli = configDir(t);
  const lms = lmsPact();
  lms
    .addInteraction()
    .given('an LMS instructor with a course', { stage: 'published' })
    .uponReceiving('a read of the published courses')
    .withRequest('GET', '/v1/lms/courses', (b) => b.headers({ Authorization: bearer() }).query({ limit: '100' }))
    // The catalogue holds others' courses too: of each, only what every course has (a description is optional).
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: eachLike(catalogueItem('published')), meta: page }));
  await lms
    .addInteraction()
    .given('an LMS instructor with a course', { stage: 'complete' })
    .uponReceiving("a read of the instructor's own courses")
    .withRequest('GET', '/v1/lms/authoring/courses', (b) =>
      b.headers({ Authorization: bearer() }).query({ limit: '100' }),
    )
    // A new instructor's own courses: exactly the one the state made.
    .willRespondWith(200, (b) => b.jsonBody({ success: true, data: [course('draft')], meta: page }))
    .executeTest(async (mock) => {
      cli.signedIn(mock.url);
      const catalogue = await capctl(t, cli.dir, 'lms', 'course', 'list', '--json');
      t.is(catalogue.code, 0, catalogue.stderr);
      t.like(JSON.parse(catalogue.stdout)[0], { status: 'published' });
      const mine = await capctl(t, cli.dir, 'lms', 'course', 'list', '--authoring', '--json');
      t.is(mine.code, 0, mine.stderr);
      t.like(JSON.parse(mine.stdout)[0], { status: 'draft' });
    });
});

const exampleEnrollmentId = '01J9Z8X7W6V5T4S3R2Q1P0ENRE';

test.serial('capctl lms enroll --no-checkout enrols in a paid course, which waits for payment', async (t) => {
  const cli = configDir(t);
  await lmsPact()
    .addInteraction()
    .given('an LMS learner and a paid course', { enrolled: 'no' })
    .uponReceiving('an enrollment in a paid course')
    .withRequest(
      'POST',
      fromProviderState(`/v1/lms/courses/\${courseId}/enrollments`, `/v1/lms/courses/${exampleCourseId}/enrollments`),
      (b) => b.headers({ Authorization: bearer() }),
    )
    .willRespondWith(201, (b) =>
      b.jsonBody({
        success: true,
        data: {
          id: ulid(exampleEnrollmentId),
          courseId: ulid(exampleCourseId),
          courseTitle: string('Floor tiling basics'),
          learnerLmsUserId: ulid(),
          status: 'pending',
          percentComplete: 0,
          createdAt: isoDateTime(),
          completedAt: null,
        },
      }),
    )
    .executeTest(async (mock) => {
      cli.signedIn(mock.url);
      const run = await capctl(t, cli.dir, 'lms', 'enroll', exampleCourseId, '--no-checkout', '--json');
      t.is(run.code, 0, run.stderr);
      t.deepEqual(JSON.parse(run.stdout).enrollment.status, 'pending');
    });
});

test.serial(
  'capctl lms checkout starts paying for a pending enrollment at the course price, printing where to pay',
  async (t) => {
    const cli = configDir(t);
    await lmsPact()
      .addInteraction()
      .given('an LMS learner and a paid course', { enrolled: 'yes' })
      .uponReceiving('a checkout of a pending enrollment')
      .withRequest(
        'POST',
        fromProviderState(
          `/v1/lms/enrollments/\${enrollmentId}/checkout`,
          `/v1/lms/enrollments/${exampleEnrollmentId}/checkout`,
        ),
        (b) => b.headers({ Authorization: bearer() }),
      )
      .willRespondWith(200, (b) =>
        b.jsonBody({
          success: true,
          data: {
            paymentId: ulid(),
            checkoutUrl: regex(
              '^https?://.+/v1/ol/payments/sandbox/checkout/PAY-[0-9A-Z]+$',
              'http://127.0.0.1:4000/v1/ol/payments/sandbox/checkout/PAY-01J9Z8X7W6V5T4S3R2Q1P0PAYM',
            ),
            amount: money('1500000'),
          },
        }),
      )
      .executeTest(async (mock) => {
        cli.signedIn(mock.url);
        const run = await capctl(t, cli.dir, 'lms', 'checkout', exampleEnrollmentId);
        t.is(run.code, 0, run.stderr);
        t.regex(run.stdout, /pay NGN 1500000 \(minor units\) at http.*\/sandbox\/checkout\/PAY-/);
      });
  },
);

test.serial(
  'capctl lms scorm upload --module attaches the uploaded package as a SCORM item of the module',
  async (t) => {
    const cli = configDir(t);
    const examplePackageId = '01J9Z8X7W6V5T4S3R2Q1P0PKG1';
    // The upload itself (POST /v1/ol/storage/upload, multipart) is the operation `capctl upload --form`
    // pins in capctl-ol.json; here a stand-in Orchestrator answers it, and the LMS side is the contract.
    const ol = http.createServer((req, res) => {
      req.resume().on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: true, data: { assetId: examplePackageId } }));
      });
    });
    await new Promise<void>((resolve) => ol.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise<void>((resolve) => ol.close(() => resolve())));
    const olUrl = `http://127.0.0.1:${(ol.address() as AddressInfo).port}`;
    await lmsPact()
      .addInteraction()
      .given('an LMS instructor with a course', { stage: 'complete', scormPackage: 'yes' })
      .uponReceiving('an attachment of an uploaded SCORM package as a new item')
      .withRequest(
        'POST',
        fromProviderState(
          `/v1/lms/authoring/courses/\${courseId}/modules/\${moduleId}/items`,
          `/v1/lms/authoring/courses/${exampleCourseId}/modules/${exampleModuleId}/items`,
        ),
        (b) =>
          b.headers({ Authorization: bearer() }).jsonBody({
            type: 'scorm_package',
            title: 'Workshop safety',
            packageAssetId: fromProviderState('\${packageAssetId}', examplePackageId),
          }),
      )
      .willRespondWith(201, (b) =>
        b.jsonBody({
          success: true,
          data: {
            id: ulid(),
            moduleId: ulid(),
            type: 'scorm_package',
            title: 'Workshop safety',
            order: like(2),
            required: true,
            mediaAssetId: null,
            packageAssetId: string(examplePackageId),
            scoHref: 'index.html',
          },
        }),
      )
      .executeTest(async (mock) => {
        cli.signedIn(await mockGateway(t, { ol: olUrl, lms: mock.url }));
        const run = await capctl(
          t,
          cli.dir,
          'lms',
          'scorm',
          'upload',
          '--module',
          `${exampleCourseId}/${exampleModuleId}`,
          '--title',
          'Workshop safety',
          '--json',
        );
        t.is(run.code, 0, run.stderr);
        t.like(JSON.parse(run.stdout), { packageAssetId: examplePackageId, item: { scoHref: 'index.html' } });
      });
  },
);

// --- The authoring steps of lms-instructor-publishes.yaml, as capctl run makes them ---------------------

const courseIdInPath = (suffix = '') =>
  fromProviderState(
    `/v1/lms/authoring/courses/\${courseId}${suffix}`,
    `/v1/lms/authoring/courses/${exampleCourseId}${suffix}`,
  );

stepTests(test, lmsPact, 'lms', [
  {
    rule: 'LMS staff invite an instructor by address',
    description: 'an instructor invite by an LMS admin',
    states: [['an LMS staff member', { role: 'admin' }]],
    method: 'POST',
    path: '/v1/lms/instructors/invites',
    body: { email: fromProviderState('${inviteeEmail}', 'chidi.eze@example.test') },
    status: 201,
    response: {
      success: true,
      data: {
        id: ulid(),
        kind: 'instructor',
        email: email('chidi.eze@example.test'),
        status: 'pending',
        createdAt: isoDateTime(),
        acceptedAt: null,
      },
    },
  },
  {
    rule: 'an instructor is refused inviting instructors (auth.out_of_scope)',
    description: 'an instructor invite by an instructor',
    states: [['an LMS instructor']],
    method: 'POST',
    path: '/v1/lms/instructors/invites',
    body: { email: 'chidi.eze@example.test' },
    status: 403,
    response: errorBody('auth.out_of_scope'),
  },
  {
    rule: 'an onboarded instructor may create, edit and publish courses',
    description: "a read of an instructor's LMS account",
    states: [['an LMS instructor']],
    method: 'GET',
    path: '/v1/lms/me',
    status: 200,
    response: {
      success: true,
      data: {
        lmsUserId: ulid(),
        userId: ulid(),
        personas: [{ persona: 'instructor', onboardingStatus: 'completed', profileId: ulid() }],
        instructorStatus: 'active',
        capabilities: ['course.content.edit', 'course.create', 'course.publish'],
      },
    },
  },
  {
    rule: 'the owner adds a module to a course',
    description: 'an addition of a module to a course',
    states: [['an LMS instructor with a course', { stage: 'empty' }]],
    method: 'POST',
    path: courseIdInPath('/modules'),
    body: { title: 'Underlay and battens' },
    status: 201,
    response: {
      success: true,
      data: {
        id: ulid(),
        courseId: ulid(exampleCourseId),
        title: 'Underlay and battens',
        order: like(1),
        optional: false,
      },
    },
  },
  {
    rule: 'the owner adds a lesson to a module',
    description: 'an addition of a lesson to a module',
    states: [['an LMS instructor with a course', { stage: 'complete' }]],
    method: 'POST',
    path: fromProviderState(
      `/v1/lms/authoring/courses/\${courseId}/modules/\${moduleId}/items`,
      `/v1/lms/authoring/courses/${exampleCourseId}/modules/${exampleModuleId}/items`,
    ),
    body: {
      type: 'native_lesson',
      title: 'Fixing battens',
      body: { schemaVersion: 1, html: '<p>Space battens to the tile gauge.</p>' },
    },
    status: 201,
    response: {
      success: true,
      data: {
        id: ulid(),
        moduleId: ulid(exampleModuleId),
        type: 'native_lesson',
        title: 'Fixing battens',
        order: like(2),
        required: true,
        body: { schemaVersion: 1, html: '<p>Space battens to the tile gauge.</p>' },
        mediaAssetId: null,
        packageAssetId: null,
        scoHref: null,
      },
    },
  },
  {
    rule: 'a published course has its outline in the catalogue',
    description: "a read of a published course's outline",
    states: [['an LMS instructor with a course', { stage: 'published' }]],
    method: 'GET',
    path: fromProviderState(`/v1/lms/courses/\${courseId}/outline`, `/v1/lms/courses/${exampleCourseId}/outline`),
    status: 200,
    response: {
      success: true,
      data: {
        courseId: ulid(exampleCourseId),
        modules: eachLike({
          id: ulid(),
          title: string('Setting out'),
          order: like(1),
          items: eachLike({
            id: ulid(),
            type: 'native_lesson',
            title: string('Tools'),
            order: like(1),
            required: true,
          }),
        }),
        sequencing: { prerequisites: [] },
      },
    },
  },
  {
    rule: 'a catalogue search finds nothing for a title nobody published',
    description: 'a catalogue search with no match',
    states: [['a verified user']],
    method: 'GET',
    path: '/v1/lms/courses',
    query: { q: 'No such course title' },
    status: 200,
    response: { success: true, data: [], meta: { pagination: { nextCursor: null, hasMore: false, limit: like(20) } } },
  },
]);
