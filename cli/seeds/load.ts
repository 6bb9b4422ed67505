/**
 * Seed files (seeds/README.md): YAML, one kind per file, told apart by the top-level key (`sector`,
 * `centres`, `people` or `assessors`). Every file is checked before anything is written; a bad one is reported
 * with its file, line and column.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../output.ts';
import * as nigeria from 'nigerian-states-and-lgas';
import type { PathSegment } from '../scenarios/paths.ts';
import { compileFileSchema, parseYamlFile, YamlFileError, type Issue } from '../yaml-file.ts';

export interface SeedUnit {
  referenceNumber: string;
  title: string;
  mandatory?: boolean;
  creditValue?: number;
  guidedLearningHours?: number;
  purpose?: string;
  assessmentMethods?: string[];
  learningOutcomes: Array<{
    reference: string;
    description: string;
    performanceCriteria: Array<{ reference: string; description: string }>;
  }>;
}
export interface SeedTrade {
  slug: string;
  name: string;
  description?: string;
  evidenceTypes?: string[];
  nos?: { title: string; levels: Array<{ level: number; purpose: string; units: SeedUnit[] }> };
}
export interface SeedSector {
  slug: string;
  name: string;
  description?: string;
  trades: SeedTrade[];
}
export interface SeedPerson {
  email: string;
  name?: string;
  password?: string;
}
export interface SeedCentre {
  name: string;
  registrationNo: string;
  address?: { country: string; state: string; lga?: string; address: string };
  superAdmin: SeedPerson & { name: string };
  staff?: Array<{ name: string; email: string; role: 'regular_admin' | 'staff' }>;
}
export interface SeedAssessor extends SeedPerson {
  password: string;
  personalDetails: {
    firstName: string;
    lastName: string;
    middleName?: string;
    dob: string;
    gender: string;
    nationality: string;
  };
  phoneNumber: { countryCode: string; number: string };
  address: { country: string; state: string; lga?: string; address: string };
  assessorNo?: string;
  /** Catalogue sector slugs. */
  sectors: string[];
  /** Centres (by registration number) that retain the assessor, and what for. */
  retainedBy?: Array<{ centre: string; preferredRole: 'assessor' | 'internal_verifier' | 'any' }>;
}
/** An LMS course as a seed: authored, then published unless `publish` is false. */
export interface SeedCourseItem {
  type: 'native_lesson' | 'video' | 'quiz' | 'assignment' | 'scorm_package';
  title: string;
  body?: Record<string, unknown>;
  mediaAssetId?: string;
  /** A SCORM package of the project (fixtures/scorm/<name>), uploaded to Orchestrator storage when seeded. */
  package?: string;
  quiz?: Record<string, unknown>;
}
/** A place in the CAP catalogue, by the seeds' own names: a trade's slug, a qualification level and a unit's reference number. */
export interface SeedCapPlace {
  trade: string;
  level: number;
  unit?: string;
}
export interface SeedCourse {
  title: string;
  description?: string;
  price?: string;
  publish?: boolean;
  /** The CAP unit the course teaches (its linkage, used by recommendations and level offerings). */
  cap?: SeedCapPlace & { unit: string };
  modules: Array<{ title: string; optional?: boolean; items: SeedCourseItem[] }>;
}
/** A level offering: published courses (by title) of one CAP qualification level, sold together. */
export interface SeedLevelOffering {
  title: string;
  description?: string;
  price?: string;
  cap: SeedCapPlace;
  courses: string[];
}
export interface SeedSet {
  sectors: SeedSector[];
  centres: SeedCentre[];
  platformAdmins: SeedPerson[];
  candidates: SeedPerson[];
  assessors: SeedAssessor[];
  lmsAdmins: SeedPerson[];
  lmsCourses: SeedCourse[];
  lmsLevelOfferings: SeedLevelOffering[];
  files: string[];
  /** Where an item of these files is (file:line:col), for problems found later. */
  where: Where;
}

const slug = {
  type: 'string',
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  maxLength: 80,
  hint: 'must be lowercase letters and digits joined by single hyphens',
};
const text = { type: 'string', minLength: 1 };
const kobo = { type: 'string', pattern: '^(0|[1-9][0-9]*)$', hint: 'must be a whole number of kobo, as a string' };
const level = { type: 'integer', minimum: 1, maximum: 8 };
const email = { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$', hint: 'must be an email address' };
const password = { type: 'string', minLength: 8, hint: 'must be a password of at least 8 characters' };
const person = {
  type: 'object',
  required: ['email'],
  additionalProperties: false,
  properties: { email, name: text, password },
};
const strict = (required: string[], properties: Record<string, unknown>) => ({
  type: 'object',
  required,
  additionalProperties: false,
  properties,
});

const unit = strict(['referenceNumber', 'title', 'learningOutcomes'], {
  referenceNumber: text,
  title: text,
  mandatory: { type: 'boolean' },
  creditValue: { type: 'integer', minimum: 0 },
  guidedLearningHours: { type: 'integer', minimum: 0 },
  purpose: text,
  assessmentMethods: { type: 'array', items: text },
  learningOutcomes: {
    type: 'array',
    items: strict(['reference', 'description', 'performanceCriteria'], {
      reference: text,
      description: text,
      performanceCriteria: {
        type: 'array',
        items: strict(['reference', 'description'], { reference: text, description: text }),
      },
    }),
  },
});

export const seedSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
  hint: 'a seed file holds one of: sector, centres, people, assessors, lms',
  properties: {
    sector: strict(['slug', 'name', 'trades'], {
      slug,
      name: text,
      description: text,
      trades: {
        type: 'array',
        items: strict(['slug', 'name'], {
          slug,
          name: text,
          description: text,
          evidenceTypes: { type: 'array', items: text },
          nos: strict(['title', 'levels'], {
            title: text,
            levels: {
              type: 'array',
              minItems: 1,
              items: strict(['level', 'purpose', 'units'], {
                level: { type: 'integer', minimum: 1, maximum: 8 },
                purpose: text,
                units: { type: 'array', items: unit },
              }),
            },
          }),
        }),
      },
    }),
    centres: {
      type: 'array',
      items: strict(['name', 'registrationNo', 'superAdmin'], {
        name: text,
        registrationNo: text,
        address: strict(['country', 'state', 'address'], { country: text, state: text, lga: text, address: text }),
        superAdmin: { ...person, required: ['email', 'name'] },
        staff: {
          type: 'array',
          items: strict(['name', 'email', 'role'], { name: text, email, role: { enum: ['regular_admin', 'staff'] } }),
        },
      }),
    },
    people: strict([], {
      platformAdmins: { type: 'array', items: person },
      candidates: { type: 'array', items: person },
    }),
    assessors: {
      type: 'array',
      items: strict(['email', 'password', 'personalDetails', 'phoneNumber', 'address', 'sectors'], {
        email,
        password,
        personalDetails: strict(['firstName', 'lastName', 'dob', 'gender', 'nationality'], {
          firstName: text,
          lastName: text,
          middleName: text,
          dob: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', hint: 'must be a date YYYY-MM-DD (quoted)' },
          gender: text,
          nationality: text,
        }),
        phoneNumber: strict(['countryCode', 'number'], { countryCode: text, number: text }),
        address: strict(['country', 'state', 'address'], { country: text, state: text, lga: text, address: text }),
        assessorNo: text,
        sectors: { type: 'array', items: slug },
        retainedBy: {
          type: 'array',
          items: strict(['centre', 'preferredRole'], {
            centre: text,
            preferredRole: { enum: ['assessor', 'internal_verifier', 'any'] },
          }),
        },
      }),
    },
    lms: strict(['admins', 'courses'], {
      admins: { type: 'array', minItems: 1, items: { ...person, required: ['email', 'password'] } },
      levelOfferings: {
        type: 'array',
        items: strict(['title', 'cap', 'courses'], {
          title: text,
          description: text,
          price: kobo,
          cap: strict(['trade', 'level'], { trade: slug, level: level }),
          courses: { type: 'array', minItems: 1, items: text },
        }),
      },
      courses: {
        type: 'array',
        items: strict(['title', 'modules'], {
          title: text,
          description: text,
          price: kobo,
          publish: { type: 'boolean' },
          cap: strict(['trade', 'level', 'unit'], { trade: slug, level: level, unit: text }),
          modules: {
            type: 'array',
            items: strict(['title', 'items'], {
              title: text,
              optional: { type: 'boolean' },
              items: {
                type: 'array',
                items: strict(['type', 'title'], {
                  type: { enum: ['native_lesson', 'video', 'quiz', 'assignment', 'scorm_package'] },
                  title: text,
                  body: { type: 'object' },
                  mediaAssetId: text,
                  package: {
                    type: 'string',
                    pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
                    hint: 'must be the name of a folder of fixtures/scorm',
                  },
                  quiz: { type: 'object' },
                }),
              },
            }),
          },
        }),
      },
    }),
  },
} as const;

type SeedFile = {
  sector?: SeedSector;
  centres?: SeedCentre[];
  people?: { platformAdmins?: SeedPerson[]; candidates?: SeedPerson[] };
  lms?: { admins: SeedPerson[]; courses: SeedCourse[]; levelOfferings?: SeedLevelOffering[] };
  assessors?: SeedAssessor[];
};

const validate = compileFileSchema<SeedFile>(seedSchema);

/** The YAML files of the given files and folders (folders walked, sorted), default `seeds/`. */
async function seedFiles(targets: string[]): Promise<string[]> {
  const files: string[] = [];
  for (const target of targets) {
    const info = await stat(target).catch(() => undefined);
    if (!info) throw new UsageError(`no seed file or folder ${target}`);
    if (info.isFile()) files.push(target);
    else {
      for (const entry of (await readdir(target, { withFileTypes: true, recursive: true })).sort((a, b) =>
        a.name.localeCompare(b.name),
      )) {
        if (entry.isFile() && /\.ya?ml$/.test(entry.name)) files.push(path.join(entry.parentPath, entry.name));
      }
    }
  }
  return [...new Set(files)].sort();
}

/** Where an item of a seed file is, to name it in a problem: `file:line:col`. */
export type Where = (item: object, ...path: PathSegment[]) => string;

/**
 * Reads and checks every seed file; any problem in any file stops here, all of them reported. What
 * the files can say without the platform is checked here: the shape, names unique across files,
 * references between files, Nigerian states and LGAs. What needs the platform (a sector no file
 * makes, a trade moving sector) is checked by the plan, still before the first write.
 */
export async function loadSeeds(targets: string[]): Promise<SeedSet> {
  const places = new WeakMap<
    object,
    { file: string; locate: (path: PathSegment[]) => { line: number; column: number }; path: PathSegment[] }
  >();
  const where: Where = (item, ...sub) => {
    const place = places.get(item);
    if (!place) return 'seed';
    const { line, column } = place.locate([...place.path, ...sub]);
    return `${place.file}:${line}:${column}`;
  };
  const set: SeedSet = {
    sectors: [],
    centres: [],
    platformAdmins: [],
    candidates: [],
    assessors: [],
    lmsAdmins: [],
    lmsCourses: [],
    lmsLevelOfferings: [],
    files: await seedFiles(targets),
    where,
  };
  const problems: string[] = [];
  const seen = new Map<string, () => string>(); // where each name is first seeded, placed only when it is repeated
  for (const file of set.files) {
    try {
      const { data, fail, locate } = parseYamlFile(await readFile(file, 'utf8'), file, validate);
      const issues: Issue[] = [];
      const place = (item: object, at: PathSegment[]) => places.set(item, { file, locate, path: at });
      /** A name that must be unique across all files (slugs, registration numbers, emails). */
      const once = (key: string, at: Issue['path']) => {
        const first = seen.get(key);
        if (first)
          issues.push({ path: at, message: `${key.split(':').slice(1).join(':')} is already seeded at ${first()}` });
        else seen.set(key, () => `${file}:${locate(at).line}`);
      };
      /** Names unique within one list (case-insensitive). */
      const uniqueIn = <T>(
        items: T[],
        name: (item: T) => string,
        at: (index: number) => Issue['path'],
        what: string,
      ) => {
        const names = new Set<string>();
        items.forEach((item, index) => {
          const key = name(item).toLowerCase();
          if (names.has(key)) issues.push({ path: at(index), message: `${what} ${name(item)} is given twice` });
          names.add(key);
        });
      };
      const address = (value: { country: string; state: string; lga?: string } | undefined, at: PathSegment[]) => {
        const problem = value && addressProblem(value);
        if (problem) issues.push({ path: [...at, problem.field], message: problem.message });
      };
      if (data.sector) {
        place(data.sector, ['sector']);
        once(`sector:${data.sector.slug}`, ['sector', 'slug']);
        data.sector.trades.forEach((trade, t) => {
          const at = ['sector', 'trades', t];
          place(trade, at);
          once(`trade:${trade.slug}`, [...at, 'slug']);
          if (!trade.nos) return;
          uniqueIn(
            trade.nos.levels,
            (l) => String(l.level),
            (l) => [...at, 'nos', 'levels', l, 'level'],
            'level',
          );
          const units = trade.nos.levels.flatMap((level, l) =>
            level.units.map((unit, u) => ({ unit, at: [...at, 'nos', 'levels', l, 'units', u] })),
          );
          uniqueIn(
            units,
            (x) => x.unit.referenceNumber,
            (i) => [...units[i]!.at, 'referenceNumber'],
            'unit reference',
          );
          for (const { unit, at: unitAt } of units) {
            uniqueIn(
              unit.learningOutcomes,
              (o) => o.reference,
              (o) => [...unitAt, 'learningOutcomes', o, 'reference'],
              'learning outcome',
            );
            unit.learningOutcomes.forEach((outcome, o) =>
              uniqueIn(
                outcome.performanceCriteria,
                (c) => c.reference,
                (c) => [...unitAt, 'learningOutcomes', o, 'performanceCriteria', c, 'reference'],
                'performance criterion',
              ),
            );
          }
        });
        set.sectors.push(data.sector);
      }
      data.centres?.forEach((centre, c) => {
        place(centre, ['centres', c]);
        once(`centre:${centre.registrationNo}`, ['centres', c, 'registrationNo']);
        address(centre.address, ['centres', c, 'address']);
        if (centre.staff?.length && !centre.superAdmin.password)
          issues.push({
            path: ['centres', c, 'staff'],
            message: 'staff are added by the super admin: give superAdmin a password',
          });
        const members = [centre.superAdmin, ...(centre.staff ?? [])];
        uniqueIn(
          members,
          (m) => m.email,
          (m) => (m === 0 ? ['centres', c, 'superAdmin', 'email'] : ['centres', c, 'staff', m - 1, 'email']),
          'email',
        );
        set.centres.push(centre);
      });
      const people = (list: SeedPerson[] | undefined, into: SeedPerson[], at: PathSegment[]) =>
        list?.forEach((p, i) => {
          place(p, [...at, i]);
          once(`person:${p.email.toLowerCase()}`, [...at, i, 'email']);
          into.push(p);
        });
      people(data.people?.platformAdmins, set.platformAdmins, ['people', 'platformAdmins']);
      people(data.people?.candidates, set.candidates, ['people', 'candidates']);
      people(data.lms?.admins, set.lmsAdmins, ['lms', 'admins']);
      data.assessors?.forEach((p, i) => {
        place(p, ['assessors', i]);
        once(`person:${p.email.toLowerCase()}`, ['assessors', i, 'email']);
        address(p.address, ['assessors', i, 'address']);
        uniqueIn(
          p.sectors,
          (s) => s,
          (s) => ['assessors', i, 'sectors', s],
          'sector',
        );
        uniqueIn(
          p.retainedBy ?? [],
          (r) => r.centre,
          (r) => ['assessors', i, 'retainedBy', r, 'centre'],
          'centre',
        );
        set.assessors.push(p);
      });
      data.lms?.courses.forEach((course, c) => {
        place(course, ['lms', 'courses', c]);
        once(`course:${course.title}`, ['lms', 'courses', c, 'title']);
        set.lmsCourses.push(course);
      });
      data.lms?.levelOfferings?.forEach((offering, o) => {
        place(offering, ['lms', 'levelOfferings', o]);
        once(`levelOffering:${offering.title}`, ['lms', 'levelOfferings', o, 'title']);
        set.lmsLevelOfferings.push(offering);
      });
      if (issues.length) fail(issues);
    } catch (err) {
      if (!(err instanceof YamlFileError)) throw err;
      problems.push(err.message);
    }
  }
  if (problems.length) throw new UsageError(problems.join('\n'));
  const across = referenceProblems(set);
  if (across.length) throw new UsageError(across.join('\n'));
  return set;
}

/** References from one file to another: centres that retain assessors, courses of level offerings, CAP places of seeded trades. */
function referenceProblems(set: SeedSet): string[] {
  const problems: string[] = [];
  const centres = new Map(set.centres.map((c) => [c.registrationNo, c]));
  for (const assessor of set.assessors) {
    assessor.retainedBy?.forEach((retained, r) => {
      const centre = centres.get(retained.centre);
      if (!centre)
        problems.push(
          `${set.where(assessor, 'retainedBy', r, 'centre')}: no seed file makes the centre ${retained.centre}`,
        );
      else if (!centre.superAdmin.password)
        problems.push(
          `${set.where(assessor, 'retainedBy', r, 'centre')}: the super admin of ${retained.centre} approves the request: give them a password in ${set.where(centre, 'superAdmin')}`,
        );
    });
  }
  const titles = new Set(set.lmsCourses.map((c) => c.title));
  for (const offering of set.lmsLevelOfferings) {
    offering.courses.forEach((title, c) => {
      if (!titles.has(title))
        problems.push(`${set.where(offering, 'courses', c)}: no seed file makes the course "${title}"`);
    });
  }
  const trades = new Map(set.sectors.flatMap((s) => s.trades).map((t) => [t.slug, t]));
  const checkPlace = (item: object, place: SeedCapPlace) => {
    const trade = trades.get(place.trade);
    if (!trade) return; // not seeded: the plan looks for it on the platform
    const level = trade.nos?.levels.find((l) => l.level === place.level);
    if (!level)
      problems.push(`${set.where(item, 'cap', 'level')}: the NOS of ${place.trade} has no level ${place.level}`);
    else if (place.unit && !level.units.some((u) => u.referenceNumber === place.unit))
      problems.push(
        `${set.where(item, 'cap', 'unit')}: level ${place.level} of ${place.trade} has no unit ${place.unit}`,
      );
  };
  for (const course of set.lmsCourses) if (course.cap) checkPlace(course, course.cap);
  for (const offering of set.lmsLevelOfferings) checkPlace(offering, offering.cap);
  return problems;
}

/** A Nigerian address names a state and LGA the platform's reference data holds (other countries are not checked). */
function addressProblem(address: {
  country: string;
  state: string;
  lga?: string;
}): { field: string; message: string } | undefined {
  if (address.country.trim().toLowerCase() !== 'nigeria') return undefined;
  const state = nigeria.states().find((s) => s.toLowerCase() === address.state.trim().toLowerCase());
  if (!state) return { field: 'state', message: `${address.state} is not a state of Nigeria` };
  if (address.lga && !(nigeria.lgas(state) ?? []).some((l) => l.toLowerCase() === address.lga!.trim().toLowerCase())) {
    return { field: 'lga', message: `${address.lga} is not an LGA of ${state}` };
  }
  return undefined;
}
