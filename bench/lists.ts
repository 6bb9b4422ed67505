// Every list family of the three services, first page (20 rows) with 10,000 rows behind it, in
// production mode, against the bare Express hello in the same run (bench/measure.ts): each figure in
// rounds of a load of the hello and one of the list in turn, the round with the median ratio reported.
//
// The data: one real row of each kind is made through the platform's provider states (development
// mode, the API as a client uses it), then copied 10,000 times in SQL with new ids and new values for
// the unique columns; only the reading is measured. Then the platform restarts in production mode on
// the same data and each list's reader signs in again.
//
// `node --import=tsx bench/lists.ts [--seconds 3] [--rounds 3] [--only name-part]... [--data-dir dir]`
// (`--data-dir`: the platform's data kept there, and used again by the next run that names it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { newId } from '../server/platform/ids.ts';
import { call, hello, login, paired, printTable, productionEnv, record, serve, shown } from './measure.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string', multiple: true, default: [] },
    'data-dir': { type: 'string' },
  },
});
const options = { seconds: Number(values.seconds), rounds: Number(values.rounds) };
const rowCount = 10_000;
const pageSize = 20;
const goal = { ratio: 0.35, p99: 25 };

type Values = Record<string, string>;
const freshIds = () => Array.from({ length: rowCount }, () => newId());

/**
 * Copies the one row of `table` that `where` picks `rowCount` times, each copy with `set`: a column
 * to an array (copy n takes its nth value) or to an SQL expression (of `n`, 1-based).
 */
async function copy(
  db: pg.Client,
  table: string,
  where: string,
  whereValues: unknown[],
  set: Record<string, string[] | string>,
): Promise<void> {
  const bound = [...whereValues];
  const arrays: string[] = [];
  const pairs = Object.entries(set).map(([column, value]) => {
    if (typeof value === 'string') return `'${column}', ${value}`;
    bound.push(value);
    arrays.push(`$${bound.length}::text[]`);
    return `'${column}', g.v${arrays.length}`;
  });
  // The arrays zipped by unnest: subscripting a bound array in each row copies it each time.
  const rows = arrays.length
    ? `unnest(${arrays.join(', ')}) WITH ORDINALITY AS g(${arrays.map((_, i) => `v${i + 1}`).join(', ')}, n)`
    : `generate_series(1, ${rowCount}) AS g(n)`;
  const { rowCount: written } = await db.query(
    `INSERT INTO ${table}
     SELECT (jsonb_populate_record(NULL::${table}, to_jsonb(s) || jsonb_build_object(${pairs.join(', ')}))).*
       FROM (SELECT * FROM ${table} WHERE ${where} LIMIT 1) s CROSS JOIN ${rows}`,
    bound,
  );
  if (written !== rowCount) throw new Error(`copying a row of ${table} where ${where} wrote ${written} rows`);
}

interface Reader {
  email: string;
  password: string;
}
interface Family {
  name: string;
  reader: Reader;
  path: string;
  headers?: Record<string, string>;
}

/** The provider states, their rows copied, and the lists to read: each with its reader. */
async function prepare(gateway: string, dataDir: string): Promise<Family[]> {
  const state = (service: string, name: string, params: Record<string, unknown> = {}): Promise<Values> =>
    fetch(`${gateway}/v1/${service}/dev/provider-states`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ state: name, params }),
    }).then(async (res) => {
      if (!res.ok) throw new Error(`provider state "${name}": ${res.status} ${await res.text()}`);
      return res.json() as Promise<Values>;
    });
  const ol = await state('ol', 'a user with a conversation and a notification');
  const admin = await state('cap', 'a platform admin with a catalogue trade');
  const centre = await state('cap', 'an RPL application with an interview panel', { stage: 'interview' });
  const candidate = await state('cap', 'a candidate with evidence to give');
  const learner = await state('lms', 'an LMS learner and a paid course', { enrolled: 'yes' });
  const lmsAdmin = await state('lms', 'an LMS staff member', { role: 'admin' });

  const db = new pg.Client({ connectionString: fs.readFileSync(path.join(dataDir, 'database-url'), 'utf8').trim() });
  await db.connect();
  try {
    const n = (prefix: string) => `'${prefix}' || n`;
    const email = (prefix: string) => `'${prefix}' || n || '@bench.example.test'`;
    // The Orchestrator: the user's inbox, conversations (with both participants), one conversation's messages.
    await copy(db, 'ol.inbox_notifications', 'id = $1', [ol.notificationId], { id: freshIds() });
    const [conversations, lastMessages] = [freshIds(), freshIds()];
    await copy(db, 'ol.conversations', 'id = $1', [ol.conversationId], {
      id: conversations,
      last_message_id: lastMessages,
    });
    await copy(db, 'ol.conversation_messages', 'conversation_id = $1', [ol.conversationId], {
      id: lastMessages,
      conversation_id: conversations,
    });
    for (const user of [ol.userId, ol.senderId])
      await copy(
        db,
        'ol.conversation_participants',
        'conversation_id = $1 AND user_id = $2',
        [ol.conversationId, user],
        {
          conversation_id: conversations,
        },
      );
    await copy(db, 'ol.conversation_messages', 'conversation_id = $1', [ol.conversationId], { id: freshIds() });

    // CAP, platform staff: centres, assessors (users, onboardings, profiles), trades.
    await copy(db, 'cap.centres', 'id = $1', [centre.centreId], {
      id: freshIds(),
      name: n('Bench centre '),
      registration_no: n('BENCH-'),
    });
    const [lead] = (await db.query(`SELECT user_id FROM cap.assessor_profiles WHERE id = $1`, [centre.leadId])).rows;
    const assessorUsers = freshIds();
    await copy(db, 'cap.users', 'user_id = $1', [lead.user_id], { user_id: assessorUsers, email: email('assessor') });
    await copy(db, 'cap.onboardings', `user_id = $1 AND persona = 'assessor'`, [lead.user_id], {
      id: freshIds(),
      user_id: assessorUsers,
    });
    await copy(db, 'cap.assessor_profiles', 'id = $1', [centre.leadId], { id: freshIds(), user_id: assessorUsers });
    await copy(db, 'cap.trades', 'id = $1', [admin.tradeId], {
      id: freshIds(),
      name: n('Bench trade '),
      slug: n('bench-trade-'),
    });

    // CAP, the centre: applications, each paid and with an interview before a seated panel; staff.
    const applications = freshIds();
    await copy(db, 'cap.applications', 'id = $1', [centre.applicationId], { id: applications });
    await copy(db, 'cap.application_payments', 'application_id = $1', [centre.applicationId], {
      id: freshIds(),
      application_id: applications,
      payment_id: freshIds(),
    });
    await copy(db, 'cap.application_interviews', 'application_id = $1', [centre.applicationId], {
      id: freshIds(),
      application_id: applications,
    });
    await copy(
      db,
      'cap.application_assessors',
      `application_id = $1 AND role = 'panel_voter'`,
      [centre.applicationId],
      {
        id: freshIds(),
        application_id: applications,
      },
    );
    const members = freshIds();
    await copy(db, 'cap.users', 'user_id = $1', [lead.user_id], { user_id: members, email: email('member') });
    await copy(db, 'cap.centre_staff', 'centre_id = $1 AND user_id = $2', [centre.centreId, centre.userId], {
      id: freshIds(),
      user_id: members,
      email: email('member'),
      name: n('Member '),
      role: `'staff'`,
    });
    // CAP, the candidate: one application's evidence.
    await copy(db, 'cap.application_evidence', 'id = $1', [candidate.evidenceId], { id: freshIds() });

    // The LMS: published courses (with their instructor), the learner's enrollments in them, learners, staff.
    const courses = freshIds();
    await copy(db, 'lms.lms_courses', 'id = $1', [learner.courseId], { id: courses, title: n('Bench course ') });
    await copy(db, 'lms.lms_course_instructors', 'course_id = $1', [learner.courseId], {
      id: freshIds(),
      course_id: courses,
    });
    await copy(db, 'lms.lms_enrollments', 'id = $1', [learner.enrollmentId], { id: freshIds(), course_id: courses });
    // Learners, each enrolled once (as learners are), and staff, who joined before the learners (the
    // learner directory, newest first, is not read through 10,000 staff, of whom a platform has a few).
    const [learners, staff] = [freshIds(), freshIds()];
    await copy(db, 'lms.lms_users', 'id = $1', [learner.lmsUserId], {
      id: learners,
      user_id: freshIds(),
      email: email('learner'),
      display_name: n('Learner '),
    });
    await copy(db, 'lms.lms_profiles', 'lms_user_id = $1', [learner.lmsUserId], {
      id: freshIds(),
      lms_user_id: learners,
    });
    await copy(db, 'lms.lms_enrollments', 'id = $1', [learner.enrollmentId], {
      id: freshIds(),
      learner_lms_user_id: learners,
    });
    await copy(db, 'lms.lms_users', 'id = $1', [lmsAdmin.lmsUserId], {
      id: staff,
      user_id: freshIds(),
      email: email('staff'),
      display_name: n('Staff '),
      created_at: `to_jsonb(s.created_at - interval '1 day')`,
    });
    await copy(db, 'lms.lms_staff_members', 'lms_user_id = $1', [lmsAdmin.lmsUserId], {
      id: freshIds(),
      lms_user_id: staff,
    });
    for (const [people, source] of [
      [learners, learner.lmsUserId],
      [staff, lmsAdmin.lmsUserId],
    ] as const)
      await copy(db, 'lms.lms_onboardings', 'lms_user_id = $1', [source], { id: freshIds(), lms_user_id: people });
    await db.query('ANALYZE');
  } finally {
    await db.end();
  }

  const who = (values: Values): Reader => ({ email: values.email!, password: values.password! });
  const asCentre = { 'x-cap-persona': 'centre', 'x-cap-centre-id': centre.centreId! };
  return [
    { name: 'OL notifications', reader: who(ol), path: '/v1/ol/notifications' },
    { name: 'OL conversations', reader: who(ol), path: '/v1/ol/conversations' },
    {
      name: "OL a conversation's messages",
      reader: who(ol),
      path: `/v1/ol/conversations/${ol.conversationId}/messages`,
    },
    { name: 'CAP admin centres', reader: who(admin), path: '/v1/cap/admin/centres' },
    { name: 'CAP admin assessors', reader: who(admin), path: '/v1/cap/admin/assessors' },
    { name: 'CAP admin trades', reader: who(admin), path: '/v1/cap/admin/trades' },
    { name: 'CAP admin payments', reader: who(admin), path: '/v1/cap/admin/payments' },
    { name: "CAP a centre's applications", reader: who(centre), path: '/v1/cap/applications', headers: asCentre },
    { name: "CAP a centre's payments", reader: who(centre), path: '/v1/cap/centre/payments', headers: asCentre },
    {
      name: "CAP a centre's interview bookings",
      reader: who(centre),
      path: '/v1/cap/centre/interview-bookings',
      headers: asCentre,
    },
    { name: "CAP a centre's staff", reader: who(centre), path: '/v1/cap/centre/staff', headers: asCentre },
    {
      name: "CAP an application's evidence",
      reader: who(candidate),
      path: `/v1/cap/applications/${candidate.applicationId}/evidence`,
      headers: { 'x-cap-persona': 'candidate' },
    },
    { name: 'LMS courses (catalogue)', reader: who(learner), path: '/v1/lms/courses' },
    { name: "LMS a learner's enrollments", reader: who(learner), path: '/v1/lms/enrollments/mine' },
    { name: 'LMS admin learners', reader: who(lmsAdmin), path: '/v1/lms/admin/learners' },
    { name: 'LMS staff', reader: who(lmsAdmin), path: '/v1/lms/staff' },
  ];
}

const dataDir = values['data-dir'] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-lists-'));
const seeded = path.join(dataDir, 'bench-lists.json');
const baseline = await hello();
try {
  if (!fs.existsSync(seeded)) {
    console.error(`lists: seeding ${rowCount} rows of each family`);
    const development = await serve(dataDir);
    try {
      fs.writeFileSync(seeded, JSON.stringify(await prepare(development.gateway, dataDir)));
    } finally {
      await development.stop();
    }
  }
  const families = (JSON.parse(fs.readFileSync(seeded, 'utf8')) as Family[]).filter(
    (family) => !values.only.length || values.only.some((part) => family.name.includes(part)),
  );
  console.error('lists: production mode');
  const platform = await serve(dataDir, productionEnv);
  try {
    for (const family of families) {
      const headers = {
        ...(await login(platform.gateway, family.reader.email, family.reader.password)),
        ...family.headers,
      };
      const url = `${platform.gateway}${family.path}?limit=${pageSize}`;
      // The list must hold what was copied: a full first page.
      const res = await fetch(url, { headers });
      const body = (await res.json()) as { data: unknown[] };
      if (!res.ok || body.data.length !== pageSize)
        throw new Error(
          `${family.name}: ${res.status}, ${body.data?.length} rows: ${JSON.stringify(body).slice(0, 300)}`,
        );
      const measured = await paired(baseline.url, url, headers, options);
      const ratio = measured.figure.perSecond / measured.hello.perSecond;
      const ratios = measured.ratios.map((r) => r.toFixed(2));
      record({
        figure: `${family.name}: \`GET ${family.path.replace(/\/[0-9A-Z]{26}\//, '/{id}/')}\``,
        measured: shown(measured.figure),
        baseline: `hello ${shown(measured.hello)}`,
        ratio: `${ratio.toFixed(2)}x (rounds ${ratios.join(', ')})`,
        goal: `>= ${goal.ratio}x, p99 <= ${goal.p99} ms`,
        met: ratio >= goal.ratio && measured.figure.p99 <= goal.p99 && measured.figure.errors === 0,
      });
    }
  } finally {
    await platform.stop();
  }
} finally {
  baseline.stop();
  if (!values['data-dir']) fs.rmSync(dataDir, { recursive: true, force: true });
}
printTable();
