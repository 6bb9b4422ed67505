/**
 * `capctl seed export DIR`: the live platform's catalogue (sectors, active trades, each trade's active
 * NOS with levels, units, outcomes and criteria), centres with their staff, and (read as LMS staff) the
 * LMS's admins, courses and level offerings, written back as seed files (`DIR/catalogue/<sector>.yaml`,
 * `DIR/centres.yaml`, `DIR/lms.yaml`) that `capctl seed` reads. Passwords are never exported: a
 * centre's super admin and the first LMS admin need one added before the export is seeded elsewhere.
 * What lives only on this platform (an uploaded video, a SCORM package that is not one of the project's)
 * cannot be written as a seed: such an item is left out and named in `skipped`.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { projectPath } from '../../server/platform/paths.ts';
import { stringify } from 'yaml';
import type { Api } from '../session.ts';
import { inParallel } from './apply.ts';

/** The seed shape of a value: nulls and empty optional lists dropped, keys renamed where the seed names them otherwise. */
function unitOf(unit: any) {
  const {
    referenceNumber,
    title,
    isMandatory,
    creditValue,
    guidedLearningHours,
    purpose,
    assessmentMethods,
    learningOutcomes,
  } = unit;
  return {
    referenceNumber,
    title,
    mandatory: isMandatory,
    ...(creditValue != null ? { creditValue } : {}),
    ...(guidedLearningHours != null ? { guidedLearningHours } : {}),
    ...(purpose ? { purpose } : {}),
    ...(assessmentMethods?.length ? { assessmentMethods } : {}),
    learningOutcomes: learningOutcomes.map((o: any) => ({
      reference: o.reference,
      description: o.description,
      performanceCriteria: o.performanceCriteria.map((c: any) => ({
        reference: c.reference,
        description: c.description,
      })),
    })),
  };
}

export interface Exported {
  sectors: number;
  trades: number;
  centres: number;
  /** Undefined when the LMS was not read (the reader is not LMS staff). */
  courses?: number;
  levelOfferings?: number;
  /** What could not be written as a seed, and why. */
  skipped: string[];
  files: string[];
}

/** Every row of a paged list, page by page. */
async function everyRow(api: Api, token: string, urlPath: string): Promise<any[]> {
  const rows: any[] = [];
  let cursor: string | null = null;
  do {
    const page = await api.send(
      'GET',
      `${urlPath}${urlPath.includes('?') ? '&' : '?'}limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      { token },
    );
    const body = page.body as { data: any[]; meta?: { pagination?: { nextCursor: string | null } } };
    rows.push(...body.data);
    cursor = body.meta?.pagination?.nextCursor ?? null;
  } while (cursor);
  return rows;
}

/** Exports as `token` (a platform admin) and, when given, the LMS as `lmsToken` (LMS staff). */
export async function exportSeeds(api: Api, token: string, dir: string, lmsToken?: string): Promise<Exported> {
  const list = (urlPath: string) => everyRow(api, token, `/v1/cap${urlPath}`);
  const get = (urlPath: string) => api.call<any>('GET', `/v1/cap${urlPath}`, { token });
  // Everything in the order of its key, so that an export seeded elsewhere and exported again is the same text.
  const [sectors, trades, centres] = await Promise.all([
    list('/admin/sectors'),
    list('/admin/trades?status=active'),
    list('/admin/centres'),
  ]);
  const details = new Map((await inParallel(trades, 8, (t) => get(`/admin/trades/${t.id}`))).map((d) => [d.id, d]));
  const files: string[] = [];
  await mkdir(path.join(dir, 'catalogue'), { recursive: true });
  for (const sector of sectors) {
    const own = trades.filter((t) => t.sectorId === sector.id).sort((a, b) => a.slug.localeCompare(b.slug));
    const seed = {
      sector: {
        slug: sector.slug,
        name: sector.name,
        ...(sector.description ? { description: sector.description } : {}),
        trades: own.map((trade) => {
          const nos = details.get(trade.id)?.nos;
          return {
            slug: trade.slug,
            name: trade.name,
            ...(trade.description ? { description: trade.description } : {}),
            ...(trade.evidenceTypes?.length ? { evidenceTypes: trade.evidenceTypes } : {}),
            ...(nos
              ? {
                  nos: {
                    title: nos.title,
                    levels: nos.levels.map((l: any) => ({
                      level: l.level,
                      purpose: l.purpose,
                      units: l.units.map(unitOf),
                    })),
                  },
                }
              : {}),
          };
        }),
      },
    };
    const file = path.join(dir, 'catalogue', `${sector.slug}.yaml`);
    await writeFile(file, `# Exported by capctl seed export.\n${stringify(seed, { lineWidth: 0 })}`);
    files.push(file);
  }
  const staffOf = new Map(
    await inParallel(centres, 8, async (c) => [c.id, (await get(`/admin/centres/${c.id}`)).staff] as const),
  );
  const exported = [...centres]
    .sort((a, b) => a.registrationNo.localeCompare(b.registrationNo))
    .map((centre) => {
      const founder = centre.superAdmin;
      const staff = (staffOf.get(centre.id) as any[]).filter(
        (s) => s.email !== founder?.email && s.role !== 'super_admin' && s.status !== 'inactive',
      );
      return {
        name: centre.name,
        registrationNo: centre.registrationNo,
        ...(centre.address ? { address: centre.address } : {}),
        superAdmin: { name: founder?.name ?? founder?.email, email: founder?.email },
        ...(staff.length
          ? {
              staff: staff
                .sort((a, b) => a.email.localeCompare(b.email))
                .map((s) => ({ name: s.name ?? s.email, email: s.email, role: s.role })),
            }
          : {}),
      };
    });
  const file = path.join(dir, 'centres.yaml');
  await writeFile(
    file,
    `# Exported by capctl seed export. Passwords are not exported: a centre with staff\n# needs superAdmin.password before this file is seeded.\n${stringify({ centres: exported }, { lineWidth: 0 })}`,
  );
  files.push(file);
  const result: Exported = {
    sectors: sectors.length,
    trades: trades.length,
    centres: centres.length,
    skipped: [],
    files,
  };
  if (lmsToken) {
    const lms = await exportLms(api, lmsToken, trades);
    const lmsFile = path.join(dir, 'lms.yaml');
    await writeFile(
      lmsFile,
      `# Exported by capctl seed export. Passwords are not exported: each admin needs a password\n# before this file is seeded (courses are authored as the first).\n${stringify({ lms: lms.seed }, { lineWidth: 0 })}`,
    );
    Object.assign(result, {
      courses: lms.seed.courses.length,
      levelOfferings: lms.seed.levelOfferings.length,
      skipped: lms.skipped,
    });
    files.push(lmsFile);
  }
  return result;
}

/**
 * The LMS as seed: its admins, every course (modules and items with their content; the CAP unit it
 * teaches by trade slug, level and reference) and every level offering, each in title order.
 */
async function exportLms(api: Api, token: string, capTrades: Array<{ id: string; slug: string }>) {
  const lms = (urlPath: string) => api.call<any>('GET', `/v1/lms${urlPath}`, { token });
  const skipped: string[] = [];
  const byTitle = (a: { title: string }, b: { title: string }) => a.title.localeCompare(b.title);
  // CAP places by id: each active trade's levels and units, read from the public catalogue.
  const places = new Map<string, { trade: string; level: number; unit?: string }>();
  await inParallel(capTrades, 8, async (trade) => {
    const nos = (await api.call<any>('GET', `/v1/cap/trades/${trade.id}`)).activeNosDocument;
    for (const level of nos?.qualificationLevels ?? []) {
      places.set(level.id, { trade: trade.slug, level: level.level });
      for (const unit of level.units)
        places.set(unit.id, { trade: trade.slug, level: level.level, unit: unit.referenceNumber });
    }
  });
  const staff = await everyRow(api, token, '/v1/lms/staff');
  const admins = staff
    .filter((s) => s.role === 'admin' && s.status === 'active')
    .sort((a, b) => a.email.localeCompare(b.email))
    .map((s) => ({ name: s.displayName ?? s.email, email: s.email }));
  const courses = (await everyRow(api, token, '/v1/lms/authoring/courses'))
    .filter((c) => c.status !== 'archived')
    .sort(byTitle);
  const packageNames = new Map<string, string | undefined>();
  const packageOf = async (assetId: string) => {
    if (!packageNames.has(assetId)) {
      const [asset] = await api
        .call<Array<{ fileName?: string }>>('POST', '/v1/ol/storage/resolve', { token, body: { assetIds: [assetId] } })
        .catch(() => []);
      const name = asset?.fileName?.replace(/\.zip$/, '');
      packageNames.set(assetId, name && existsSync(projectPath('fixtures', 'scorm', name)) ? name : undefined);
    }
    return packageNames.get(assetId);
  };
  const seededCourses = await inParallel(courses, 4, async (summary) => {
    const course = await lms(`/authoring/courses/${summary.id}`);
    const modules = [];
    for (const module of course.outline.modules) {
      const items = [];
      for (const entry of module.items) {
        const item = await lms(`/authoring/courses/${course.id}/items/${entry.id}`);
        const where = `course "${course.title}", item "${item.title}"`;
        if (item.mediaAssetId) {
          skipped.push(`${where}: its media is a file uploaded to this platform`);
          continue;
        }
        const name = item.packageAssetId ? await packageOf(item.packageAssetId) : undefined;
        if (item.packageAssetId && !name) {
          skipped.push(`${where}: its SCORM package is not one of the project's (fixtures/scorm)`);
          continue;
        }
        items.push({
          type: item.type,
          title: item.title,
          ...(item.body ? { body: item.body } : {}),
          ...(name ? { package: name } : {}),
          ...(item.quiz ? { quiz: item.quiz } : {}),
        });
      }
      modules.push({ title: module.title, ...(module.optional ? { optional: true } : {}), items });
    }
    const unit = course.capLinkage?.unitId ? places.get(course.capLinkage.unitId) : undefined;
    return {
      title: course.title,
      ...(course.description ? { description: course.description } : {}),
      price: course.price.amountMinorUnits,
      ...(course.status === 'published' ? {} : { publish: false }),
      ...(unit?.unit ? { cap: unit } : {}),
      modules,
    };
  });
  const offerings = (await everyRow(api, token, '/v1/lms/authoring/level-offerings')).sort(byTitle);
  const seededOfferings = (
    await inParallel(offerings, 4, async (summary) => {
      const offering = await lms(`/authoring/level-offerings/${summary.id}`);
      const place = places.get(offering.capQualificationLevelId);
      if (!place) {
        skipped.push(`level offering "${offering.title}": its CAP level is not in the active catalogue`);
        return undefined;
      }
      return {
        title: offering.title,
        ...(offering.description ? { description: offering.description } : {}),
        ...(offering.price ? { price: offering.price.amountMinorUnits } : {}),
        cap: { trade: place.trade, level: place.level },
        courses: offering.items.map((i: { courseTitle: string }) => i.courseTitle),
      };
    })
  ).filter((o) => o !== undefined);
  return { seed: { admins, courses: seededCourses, levelOfferings: seededOfferings }, skipped };
}
