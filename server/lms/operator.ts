// The LMS's operator face: the only file of the LMS that capctl imports. What an operator does to the
// LMS directly, not through its API: inviting the first staff (only staff invite through the API) and
// zipping the project's SCORM packages. capctl imports it while it builds its commands, so it stays
// light: the work is loaded when it is done.
import type { StaffRole } from './people/index.ts';

// The zipping comes from the catalogue's SCORM files themselves, not its face: the face loads the
// whole catalogue (Sequelize, gRPC), which a seed paid for in the middle of its first requests.

/** The platform's own SCORM 1.2 package (fixtures/scorm/workshop-safety), zipped from its sources. */
export async function samplePackage(): Promise<Buffer> {
  return (await import('./catalogue/scorm/sample.ts')).samplePackage();
}

/** The project's SCORM package fixtures/scorm/<name>, zipped from its sources. */
export async function fixturePackage(name: string): Promise<Buffer> {
  const [{ zipFolder }, { projectPath }] = await Promise.all([
    import('./catalogue/scorm/package.ts'),
    import('../platform/paths.ts'),
  ]);
  return zipFolder(projectPath('fixtures', 'scorm', name));
}

/**
 * Invites an address to be LMS staff with `role`, in the LMS database of a platform at `databaseUrl`.
 * The account accepts by completing its staff onboarding. Answers false when the address is already
 * invited or staff.
 */
export async function inviteStaff(databaseUrl: string, email: string, role: StaffRole): Promise<boolean> {
  const [{ createSequelize }, { createInvites }, { AppError }] = await Promise.all([
    import('../platform/db/database.ts'),
    import('./people/index.ts'),
    import('../platform/http/errors.ts'),
  ]);
  const sequelize = createSequelize(databaseUrl, 'lms', 1);
  try {
    await createInvites(sequelize).create('staff', email, null, role);
    return true;
  } catch (err) {
    if (err instanceof AppError && err.code === 'lms.invite.duplicate') return false;
    throw err;
  } finally {
    await sequelize.close();
  }
}
