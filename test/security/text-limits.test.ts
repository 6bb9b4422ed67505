import test from 'ava';
import { serviceNames } from '../../server/platform/config.ts';
import { loadApiDocument, type JsonSchema } from '../../server/platform/http/openapi.ts';
import { lms, lmsStaff, type LmsPerson } from '../helpers/lms.ts';
import { sql, startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

// Attack: text longer than anything the platform stores. A 200,000-character title on LMS course
// and module creation was a 500 (the column holds 200). Every string of every request now has a
// documented limit, and past it the request is 422 naming the field, before anything is written.
let platform: TestPlatform;
let author: LmsPerson;
test.before(async () => {
  platform = await startTestPlatform();
  author = await lmsStaff(platform);
});
test.after.always(() => platform?.stop());

// Formats whose values have a bounded length by themselves (an email or a URI does not).
const boundedFormats = new Set(['date', 'date-time', 'time', 'uuid', 'ipv4', 'ipv6', 'binary']);

/** A pattern anchored at both ends with no unbounded repetition (`*`, `+`, `{n,}`) outside a character class. */
function boundedPattern(pattern: string): boolean {
  const plain = pattern.replace(/\\./g, 'x').replace(/\[[^\]]*\]/g, 'x');
  return plain.startsWith('^') && plain.endsWith('$') && !/[*+]|\{\d+,\}/.test(plain);
}

/** Whether the values a string schema admits have a bounded length. */
function bounded(schema: JsonSchema): boolean {
  if (schema.maxLength !== undefined || schema.enum || schema.const !== undefined) return true;
  if (typeof schema.format === 'string' && boundedFormats.has(schema.format)) return true;
  if (typeof schema.pattern === 'string' && boundedPattern(schema.pattern)) return true;
  if ((schema.allOf as JsonSchema[] | undefined)?.some(bounded)) return true;
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  return Boolean(branches?.length && branches.every((branch) => bounded(branch) || !admitsString(branch)));
}

const admitsString = (schema: JsonSchema) =>
  schema.type === undefined || ([] as unknown[]).concat(schema.type).includes('string');

/**
 * Every place a string may stand in a schema, by dotted path: the schemas that apply there (the
 * schema itself and, through allOf, its siblings' constraints on the same place).
 */
function stringPlaces(
  schema: JsonSchema | undefined,
  at: string,
  out: Array<{ where: string; schema: JsonSchema }>,
  seen = new Set<unknown>(),
): void {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
  seen.add(schema);
  if (([] as unknown[]).concat(schema.type ?? []).includes('string')) out.push({ where: at, schema });
  // allOf branches describe the same place: their properties merge, so they are read together.
  const merged = [schema, ...((schema.allOf as JsonSchema[] | undefined) ?? [])];
  const properties = new Map<string, JsonSchema[]>();
  for (const part of merged) {
    for (const [name, property] of Object.entries((part.properties as Record<string, JsonSchema> | undefined) ?? {}))
      properties.set(name, [...(properties.get(name) ?? []), property]);
    if (part !== schema)
      for (const branch of [...((part.anyOf as JsonSchema[]) ?? []), ...((part.oneOf as JsonSchema[]) ?? [])])
        stringPlaces(branch, at, out, seen);
    if (part.items) stringPlaces(part.items as JsonSchema, `${at}[]`, out, seen);
    if (part.additionalProperties && typeof part.additionalProperties === 'object')
      stringPlaces(part.additionalProperties as JsonSchema, `${at}.*`, out, seen);
  }
  for (const branch of [...((schema.anyOf as JsonSchema[]) ?? []), ...((schema.oneOf as JsonSchema[]) ?? [])])
    stringPlaces(branch, at, out, seen);
  for (const [name, schemas] of properties) {
    const place = `${at}.${name}`;
    const strings: Array<{ where: string; schema: JsonSchema }> = [];
    for (const property of schemas) stringPlaces(property, place, strings, seen);
    // One verdict per place: bounded when any schema that applies there bounds it.
    const here = strings.filter((s) => s.where === place);
    if (here.length)
      out.push({
        where: place,
        schema: { allOf: here.map((s) => s.schema), type: 'string', readOnly: here.some((s) => s.schema.readOnly) },
      });
    out.push(...strings.filter((s) => s.where !== place));
  }
}

test('every string of every request (body, query, path, header) in the three documents has a documented limit', async (t) => {
  const unbounded: string[] = [];
  let checked = 0;
  for (const service of serviceNames) {
    for (const op of (await loadApiDocument(service)).operations) {
      const places: Array<{ where: string; schema: JsonSchema }> = [];
      stringPlaces(op.requestBody?.content['application/json']?.schema, 'body', places);
      for (const p of op.parameters) stringPlaces(p.schema, `${p.in}.${p.name}`, places);
      for (const { where, schema } of places) {
        checked++;
        // A read-only field is ignored in a request (a resolved link a save may send back).
        if (!schema.readOnly && !bounded(schema)) unbounded.push(`${service} ${op.operationId} ${where}`);
      }
    }
  }
  t.true(checked > 1000, `${checked} request strings checked`);
  t.deepEqual(unbounded, []);
});

const long = 'x'.repeat(200_000);

test.serial(
  'a 200,000-character title on LMS course creation or a course update is 422 naming the field, and no course is made',
  async (t) => {
    const before = (await sql(platform, 'SELECT id FROM lms.lms_courses')).length;
    const made = await lms(platform, author, 'POST', '/authoring/courses', {
      title: long,
      price: { amountMinorUnits: '0', currency: 'NGN' },
    });
    t.is(made.status, 422, made.text.slice(0, 300));
    t.is(made.body.error.code, 'validation.failed');
    t.deepEqual(made.body.error.details, [{ field: 'title', issue: 'must NOT have more than 200 characters' }]);
    t.is((await sql(platform, 'SELECT id FROM lms.lms_courses')).length, before);
    // At the limit the title is stored whole.
    const course = await lms(platform, author, 'POST', '/authoring/courses', {
      title: 'T'.repeat(200),
      description: 'd'.repeat(50_000),
      price: { amountMinorUnits: '0', currency: 'NGN' },
    });
    t.is(course.status, 201, course.text.slice(0, 300));
    t.is(course.body.data.title.length, 200);
    const patched = await lms(platform, author, 'PATCH', `/authoring/courses/${course.body.data.id}`, { title: long });
    t.is(patched.status, 422);
    t.deepEqual(patched.body.error.details, [{ field: 'title', issue: 'must NOT have more than 200 characters' }]);
  },
);

test.serial(
  'a 200,000-character title on LMS module creation or a module update is 422 naming the field, and no module is made',
  async (t) => {
    const courseId = (
      await lms(platform, author, 'POST', '/authoring/courses', {
        title: 'Tiling',
        price: { amountMinorUnits: '0', currency: 'NGN' },
      })
    ).body.data.id;
    const made = await lms(platform, author, 'POST', `/authoring/courses/${courseId}/modules`, { title: long });
    t.is(made.status, 422, made.text.slice(0, 300));
    t.deepEqual(made.body.error.details, [{ field: 'title', issue: 'must NOT have more than 200 characters' }]);
    t.deepEqual(await sql(platform, 'SELECT id FROM lms.lms_modules WHERE course_id = $1', [courseId]), []);
    const module = await lms(platform, author, 'POST', `/authoring/courses/${courseId}/modules`, {
      title: 'M'.repeat(200),
    });
    t.is(module.status, 201, module.text.slice(0, 300));
    const patched = await lms(
      platform,
      author,
      'PATCH',
      `/authoring/courses/${courseId}/modules/${module.body.data.id}`,
      { title: long },
    );
    t.is(patched.status, 422);
    t.deepEqual(patched.body.error.details, [{ field: 'title', issue: 'must NOT have more than 200 characters' }]);
  },
);

test('an amount of more than 18 digits is 422 naming the field, not a 500 from the database', async (t) => {
  const res = await lms(platform, author, 'POST', '/authoring/courses', {
    title: 'Priced',
    price: { amountMinorUnits: '9'.repeat(25), currency: 'NGN' },
  });
  t.is(res.status, 422, res.text);
  t.is(res.body.error.details[0].field, 'price.amountMinorUnits');
});

test('a query parameter or path segment past its limit is 422 naming it', async (t) => {
  // Node refuses a request line over 16 KB itself (431), before the platform sees it.
  const query = await lms(platform, author, 'GET', `/courses?q=${'q'.repeat(5000)}`);
  t.is(query.status, 422);
  t.deepEqual(query.body.error.details, [{ field: 'query.q', issue: 'must NOT have more than 200 characters' }]);
  const path = await lms(platform, author, 'GET', `/courses/${'c'.repeat(5000)}`);
  t.is(path.status, 422);
  t.deepEqual(path.body.error.details, [{ field: 'path.courseId', issue: 'must NOT have more than 64 characters' }]);
});
