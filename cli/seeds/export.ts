/**
 * `capctl seed export DIR`: the live platform's catalogue (sectors, active trades, each trade's active
 * NOS with levels, units, outcomes and criteria) and centres with their staff, written back as seed
 * files (`DIR/catalogue/<sector>.yaml`, `DIR/centres.yaml`) that `capctl seed` reads. Passwords are
 * never exported: a centre's staff are seeded by its super admin, who needs one added before the
 * export is seeded elsewhere. LMS courses are not exported yet.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import type { Api } from '../session.ts';
import { inParallel } from './apply.ts';

/** The seed shape of a value: nulls and empty optional lists dropped, keys renamed where the seed names them otherwise. */
function unitOf(unit: any) {
  const { referenceNumber, title, isMandatory, creditValue, guidedLearningHours, purpose, assessmentMethods, learningOutcomes } = unit;
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
      performanceCriteria: o.performanceCriteria.map((c: any) => ({ reference: c.reference, description: c.description })),
    })),
  };
}

export async function exportSeeds(api: Api, token: string, dir: string): Promise<{ sectors: number; trades: number; centres: number; files: string[] }> {
  const list = async (urlPath: string) => {
    const rows: any[] = [];
    let cursor: string | null = null;
    do {
      const page = await api.send('GET', `/v1/cap${urlPath}${urlPath.includes('?') ? '&' : '?'}limit=100${cursor ? `&cursor=${cursor}` : ''}`, { token });
      const body = page.body as { data: any[]; meta?: { pagination?: { nextCursor: string | null } } };
      rows.push(...body.data);
      cursor = body.meta?.pagination?.nextCursor ?? null;
    } while (cursor);
    return rows;
  };
  const get = (urlPath: string) => api.call<any>('GET', `/v1/cap${urlPath}`, { token });
  // Everything in the order of its key, so that an export seeded elsewhere and exported again is the same text.
  const [sectors, trades, centres] = await Promise.all([list('/admin/sectors'), list('/admin/trades?status=active'), list('/admin/centres')]);
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
            ...(nos ? { nos: { title: nos.title, levels: nos.levels.map((l: any) => ({ level: l.level, purpose: l.purpose, units: l.units.map(unitOf) })) } } : {}),
          };
        }),
      },
    };
    const file = path.join(dir, 'catalogue', `${sector.slug}.yaml`);
    await writeFile(file, `# Exported by capctl seed export.\n${stringify(seed, { lineWidth: 0 })}`);
    files.push(file);
  }
  const staffOf = new Map(await inParallel(centres, 8, async (c) => [c.id, (await get(`/admin/centres/${c.id}`)).staff] as const));
  const exported = [...centres].sort((a, b) => a.registrationNo.localeCompare(b.registrationNo)).map((centre) => {
    const founder = centre.superAdmin;
    const staff = (staffOf.get(centre.id) as any[]).filter((s) => s.email !== founder?.email && s.role !== 'super_admin' && s.status !== 'inactive');
    return {
      name: centre.name,
      registrationNo: centre.registrationNo,
      ...(centre.address ? { address: centre.address } : {}),
      superAdmin: { name: founder?.name ?? founder?.email, email: founder?.email },
      ...(staff.length ? { staff: staff.sort((a, b) => a.email.localeCompare(b.email)).map((s) => ({ name: s.name ?? s.email, email: s.email, role: s.role })) } : {}),
    };
  });
  const file = path.join(dir, 'centres.yaml');
  await writeFile(
    file,
    `# Exported by capctl seed export. Passwords are not exported: a centre with staff\n# needs superAdmin.password before this file is seeded.\n${stringify({ centres: exported }, { lineWidth: 0 })}`,
  );
  files.push(file);
  return { sectors: sectors.length, trades: trades.length, centres: centres.length, files };
}
