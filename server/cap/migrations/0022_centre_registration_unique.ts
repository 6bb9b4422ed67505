import { QueryTypes, type QueryInterface } from 'sequelize';

const centres = { tableName: 'centres', schema: 'cap' };

/** A registration number names one centre (seeds find centres by it). Duplicates already written stop the migration, named. */
export async function up({ context: q }: { context: QueryInterface }): Promise<void> {
  const taken = await q.sequelize.query<{ registration_no: string }>(
    'SELECT registration_no FROM cap.centres GROUP BY registration_no HAVING count(*) > 1 ORDER BY registration_no',
    { type: QueryTypes.SELECT },
  );
  if (taken.length) {
    throw new Error(
      `several centres share the registration numbers ${taken.map((r) => r.registration_no).join(', ')}: give each its own, then start again`,
    );
  }
  await q.addIndex(centres, ['registration_no'], { unique: true, name: 'centres_registration_no_unique' });
}

export async function down({ context: q }: { context: QueryInterface }): Promise<void> {
  await q.sequelize.query('DROP INDEX cap.centres_registration_no_unique');
}
