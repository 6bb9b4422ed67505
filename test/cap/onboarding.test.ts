import test from 'ava';
import { cap, centreDraft, drafts, onboard } from '../helpers/cap.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';
import { signUp } from '../helpers/users.ts';

// CAP onboarding over real HTTP: start, mine, get, save (JSON merge patch) and submit per persona.

let platform: TestPlatform;
test.before(async () => {
  platform = await startTestPlatform();
});
test.after.always(() => platform?.stop());

const ulid = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const person = [
  'personalDetails.firstName',
  'personalDetails.lastName',
  'personalDetails.dob',
  'personalDetails.gender',
  'personalDetails.nationality',
];
const contact = [
  'contactInformation.emailAddress',
  'contactInformation.phoneNumber.countryCode',
  'contactInformation.phoneNumber.number',
];
const address = ['residentialAddress.country', 'residentialAddress.state', 'residentialAddress.address'];

test('start opens an empty draft and answers 201 with its summary', async (t) => {
  const user = await signUp(platform);
  const res = await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'candidate' } });
  t.is(res.status, 201);
  const summary = res.body.data;
  t.regex(summary.onboardingId, ulid);
  t.like(summary, { persona: 'candidate', status: 'draft', completedAt: null });
  t.false(Number.isNaN(Date.parse(summary.createdAt)));
  t.is(summary.lastUpdatedAt, summary.createdAt);
});

test('starting a persona already started is 409 onboarding.already_started', async (t) => {
  const user = await signUp(platform);
  await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'centre' } });
  const again = await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'centre' } });
  t.is(again.status, 409);
  t.is(again.body.error.code, 'onboarding.already_started');
});

test('candidate, centre and assessor onboardings are open to anyone; awarding body is 403 onboarding.invite_required', async (t) => {
  const user = await signUp(platform);
  for (const persona of ['candidate', 'centre', 'assessor']) {
    t.is((await cap(platform, user, 'POST', '/onboarding/start', { json: { persona } })).status, 201, persona);
  }
  const refused = await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'awarding_body' } });
  t.is(refused.status, 403);
  t.is(refused.body.error.code, 'onboarding.invite_required');
  const unknown = await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'admin' } });
  t.is(unknown.status, 422);
  t.is(unknown.body.error.details[0].field, 'persona');
});

test("GET /onboarding/mine lists the caller's onboardings on `onboardings`, oldest first", async (t) => {
  const user = await signUp(platform);
  t.deepEqual((await cap(platform, user, 'GET', '/onboarding/mine')).body.data, { onboardings: [] });
  await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'assessor' } });
  await onboard(platform, user, 'candidate');
  const mine = (await cap(platform, user, 'GET', '/onboarding/mine')).body.data.onboardings;
  t.deepEqual(
    mine.map((o: { persona: string; status: string }) => [o.persona, o.status]),
    [
      ['assessor', 'draft'],
      ['candidate', 'completed'],
    ],
  );
  t.true(mine.every((o: object) => !('data' in o)));
});

test('GET /onboarding/{persona} is 404 until started, then the record with its draft', async (t) => {
  const user = await signUp(platform);
  const missing = await cap(platform, user, 'GET', '/onboarding/candidate');
  t.is(missing.status, 404);
  t.is(missing.body.error.code, 'http.not_found');
  await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'candidate' } });
  const record = await cap(platform, user, 'GET', '/onboarding/candidate');
  t.is(record.status, 200);
  t.like(record.body.data, { persona: 'candidate', status: 'draft', data: {} });
});

test('save before start is 404', async (t) => {
  const user = await signUp(platform);
  const res = await cap(platform, user, 'PATCH', '/onboarding/assessor/save', { json: {} });
  t.is(res.status, 404);
});

test('saves merge: separate sub-trees add up, {} keeps the draft, null removes, arrays replace', async (t) => {
  const user = await signUp(platform);
  await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'centre' } });
  const save = (json: unknown) => cap(platform, user, 'PATCH', '/onboarding/centre/save', { json });

  await save({ centre: drafts.centre.centre });
  const withOwner = await save({ owner: drafts.centre.owner });
  t.is(withOwner.status, 200);
  t.like(withOwner.body.data, { persona: 'centre', status: 'draft' });
  t.deepEqual(withOwner.body.data.data, drafts.centre);

  const empty = await save({});
  t.deepEqual(empty.body.data.data, drafts.centre);
  t.true(empty.body.data.lastUpdatedAt >= withOwner.body.data.lastUpdatedAt);

  const logo = '01JBBBBBBBBBBBBBBBBBBBBBBB';
  const changed = await save({
    centre: { centreInformation: { logoAssetId: logo }, centreAccountDetails: { nameOfAccount: null } },
    owner: { personalDetails: { middleName: null } },
  });
  const data = changed.body.data.data;
  t.deepEqual(data.centre.centreInformation, { ...drafts.centre.centre.centreInformation, logoAssetId: logo });
  t.deepEqual(data.centre.centreAccountDetails, { bank: 'Access Bank', accountNo: '0123456789' });
  t.false('middleName' in data.owner.personalDetails);
  t.is(data.owner.personalDetails.firstName, 'Ada');

  await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'assessor' } });
  await cap(platform, user, 'PATCH', '/onboarding/assessor/save', {
    json: { assessorDetails: { sectorIds: [logo, '01JCCCCCCCCCCCCCCCCCCCCCCC'] } },
  });
  const replaced = await cap(platform, user, 'PATCH', '/onboarding/assessor/save', {
    json: { assessorDetails: { sectorIds: [logo] } },
  });
  t.deepEqual(replaced.body.data.data.assessorDetails.sectorIds, [logo]);
});

test('a save that breaks the draft shape is 422 naming each field, and nothing is written', async (t) => {
  const user = await signUp(platform);
  await onboard(platform, user, 'centre');
  const before = (await cap(platform, user, 'GET', '/onboarding/centre')).body.data;
  const res = await cap(platform, user, 'PATCH', '/onboarding/centre/save', {
    json: {
      centre: {
        centreAccountDetails: { accountNo: '12345' },
        centreSupportInformation: { emailAddress: 'not-an-email' },
      },
      owner: { personalDetails: { dob: '1990-13-40', firstName: 7 }, nin: '12345678901' },
    },
  });
  t.is(res.status, 422);
  t.is(res.body.error.code, 'validation.failed');
  const fields = res.body.error.details.map((d: { field: string }) => d.field).sort();
  t.deepEqual(fields, [
    'centre.centreAccountDetails.accountNo',
    'centre.centreSupportInformation.emailAddress',
    'owner.nin',
    'owner.personalDetails.dob',
    'owner.personalDetails.firstName',
  ]);
  t.deepEqual((await cap(platform, user, 'GET', '/onboarding/centre')).body.data, before);
});

test('each persona saves only its own draft shape; an identity number is never accepted', async (t) => {
  const user = await signUp(platform);
  await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'candidate' } });
  const foreign = await cap(platform, user, 'PATCH', '/onboarding/candidate/save', {
    json: { owner: drafts.centre.owner },
  });
  t.is(foreign.status, 422);
  t.is(foreign.body.error.details[0].field, 'owner');
  for (const json of [{ identificationNumber: '12345678901' }, { personalDetails: { nin: '12345678901' } }]) {
    const res = await cap(platform, user, 'PATCH', '/onboarding/candidate/save', { json });
    t.is(res.status, 422);
    t.false(res.text.includes('12345678901'));
  }
  t.deepEqual((await cap(platform, user, 'GET', '/onboarding/candidate')).body.data.data, {});
});

test('submit of an incomplete draft is 422 onboarding.incomplete naming each missing field by dotted path', async (t) => {
  const user = await signUp(platform);
  const expected: Record<string, string[]> = {
    candidate: [...person, ...contact, ...address],
    assessor: [...person, ...contact, ...address],
    centre: [
      'centre.centreInformation.name',
      'centre.centreInformation.registrationNo',
      'centre.centreResidentialAddress.country',
      'centre.centreResidentialAddress.state',
      'centre.centreResidentialAddress.address',
      'centre.centreSupportInformation.emailAddress',
      'centre.centreSupportInformation.phoneNumber.countryCode',
      'centre.centreSupportInformation.phoneNumber.number',
      'centre.centreAccountDetails.bank',
      'centre.centreAccountDetails.accountNo',
      ...[...person, ...contact, ...address].map((field) => `owner.${field}`),
    ],
  };
  for (const [persona, fields] of Object.entries(expected)) {
    await cap(platform, user, 'POST', '/onboarding/start', { json: { persona } });
    const res = await cap(platform, user, 'POST', `/onboarding/${persona}/submit`);
    t.is(res.status, 422, persona);
    t.is(res.body.error.code, 'onboarding.incomplete');
    t.deepEqual(
      res.body.error.details,
      fields.map((field) => ({ field, issue: 'is required' })),
      persona,
    );
  }
});

test('blank strings count as missing on submit, and optional fields are not required', async (t) => {
  const user = await signUp(platform);
  await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'candidate' } });
  const { personalDetails, contactInformation, residentialAddress } = drafts.candidate;
  await cap(platform, user, 'PATCH', '/onboarding/candidate/save', {
    json: {
      personalDetails: { ...personalDetails, middleName: null, nationality: '  ' },
      contactInformation,
      residentialAddress: { ...residentialAddress, lga: null },
    },
  });
  const res = await cap(platform, user, 'POST', '/onboarding/candidate/submit');
  t.is(res.status, 422);
  t.deepEqual(res.body.error.details, [{ field: 'personalDetails.nationality', issue: 'is required' }]);
});

test('submit completes the onboarding once; a second submit is 409 onboarding.already_completed', async (t) => {
  const user = await signUp(platform);
  const completed = await onboard(platform, user, 'assessor');
  t.like(completed, { persona: 'assessor', status: 'completed' });
  t.false(Number.isNaN(Date.parse(completed.completedAt)));
  const again = await cap(platform, user, 'POST', '/onboarding/assessor/submit');
  t.is(again.status, 409);
  t.is(again.body.error.code, 'onboarding.already_completed');
});

test('saving after completion (settings screens) keeps the onboarding completed', async (t) => {
  const user = await signUp(platform);
  const completed = await onboard(platform, user, 'assessor');
  const saved = await cap(platform, user, 'PATCH', '/onboarding/assessor/save', {
    json: { assessorDetails: { assessorNo: 'ASR-0043' } },
  });
  t.is(saved.status, 200);
  t.like(saved.body.data, {
    status: 'completed',
    completedAt: completed.completedAt,
    data: { assessorDetails: { assessorNo: 'ASR-0043' } },
  });
});

test('submit of an onboarding never started is 404', async (t) => {
  const user = await signUp(platform);
  for (const persona of ['candidate', 'awarding_body']) {
    t.is((await cap(platform, user, 'POST', `/onboarding/${persona}/submit`)).status, 404, persona);
  }
});

test('submitting the centre onboarding creates a pending centre with the owner as active super_admin, listed by /me', async (t) => {
  const user = await signUp(platform);
  const registrationNo = `RC-${user.userId}`;
  await onboard(platform, user, 'centre', centreDraft(registrationNo));
  const me = (await cap(platform, user, 'GET', '/me')).body.data;
  t.is(me.centres.length, 1);
  const [membership] = me.centres;
  t.regex(membership.centreId, ulid);
  t.deepEqual(membership, {
    centreId: membership.centreId,
    name: 'Lagos Skills Centre',
    role: 'super_admin',
    status: 'operable',
  });

  const [centre] = await sql(
    platform,
    'SELECT name, registration_no, status, address, account_details, created_by FROM cap.centres WHERE id = $1',
    [membership.centreId],
  );
  t.deepEqual(centre, {
    name: 'Lagos Skills Centre',
    registration_no: registrationNo,
    status: 'pending',
    address: drafts.centre.centre.centreResidentialAddress,
    account_details: drafts.centre.centre.centreAccountDetails,
    created_by: user.userId,
  });
  const staff = await sql(platform, 'SELECT user_id, role, status FROM cap.centre_staff WHERE centre_id = $1', [
    membership.centreId,
  ]);
  t.deepEqual(staff, [{ user_id: user.userId, role: 'super_admin', status: 'active' }]);
  const mine = (await cap(platform, user, 'GET', '/onboarding/mine')).body.data.onboardings;
  t.like(mine, [{ persona: 'centre', status: 'completed' }]);
  t.deepEqual((await cap(platform, user, 'GET', '/context')).body.data, {
    persona: 'centre',
    centreId: membership.centreId,
    role: 'super_admin',
  });
});

test('a refused centre submit creates no centre', async (t) => {
  const user = await signUp(platform);
  await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'centre' } });
  await cap(platform, user, 'PATCH', '/onboarding/centre/save', { json: { centre: drafts.centre.centre } });
  t.is((await cap(platform, user, 'POST', '/onboarding/centre/submit')).status, 422);
  t.deepEqual(await sql(platform, 'SELECT id FROM cap.centres WHERE created_by = $1', [user.userId]), []);
  t.deepEqual((await cap(platform, user, 'GET', '/me')).body.data.centres, []);
});

test("the web client's phone shape (+NG and the whole international number) is saved and read back exactly as sent", async (t) => {
  const user = await signUp(platform);
  await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'candidate' } });
  const phoneNumber = { countryCode: '+NG', number: '+2348031234567' };
  const saved = await cap(platform, user, 'PATCH', '/onboarding/candidate/save', {
    json: { contactInformation: { emailAddress: user.email, phoneNumber } },
  });
  t.is(saved.status, 200, saved.text);
  t.deepEqual(saved.body.data.data.contactInformation.phoneNumber, phoneNumber);
  const read = await cap(platform, user, 'GET', '/onboarding/candidate');
  t.deepEqual(read.body.data.data.contactInformation.phoneNumber, phoneNumber);
  // The same shape on the profile, and a dialling code with a national number as well.
  for (const phone of [phoneNumber, { countryCode: '+234', number: '0803 123 4567' }]) {
    const profile = await cap(platform, user, 'PATCH', '/me/profile', {
      json: { contactInformation: { phoneNumber: phone } },
    });
    t.is(profile.status, 200, profile.text);
    t.deepEqual(profile.body.data.contactInformation.phoneNumber, phone);
  }
});

test('fields a form leaves untouched arrive as blank strings and are accepted; a blank still counts as missing on submit', async (t) => {
  const user = await signUp(platform);
  await cap(platform, user, 'POST', '/onboarding/start', { json: { persona: 'candidate' } });
  const blank = {
    personalDetails: { firstName: 'Ada', lastName: 'Obi', middleName: '', dob: '', gender: '', nationality: '' },
    contactInformation: { emailAddress: '', phoneNumber: { countryCode: '', number: '' } },
    currentOccupation: {
      employmentHistory: [
        {
          company: 'Acme',
          jobTitle: 'Welder',
          employmentType: 'Contract',
          startDate: '2020-01-01',
          endDate: '',
          keyResponsibilities: 'Welding',
        },
      ],
    },
  };
  const saved = await cap(platform, user, 'PATCH', '/onboarding/candidate/save', { json: blank });
  t.is(saved.status, 200, saved.text);
  const submit = await cap(platform, user, 'POST', '/onboarding/candidate/submit');
  t.is(submit.status, 422);
  const missing = submit.body.error.details.map((d: { field: string }) => d.field);
  t.true(missing.includes('personalDetails.dob'));
  t.true(missing.includes('contactInformation.phoneNumber.number'));
});
