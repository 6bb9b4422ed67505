/**
 * SQL of the catalogue's tables for a statement of another module that has to stay one statement (a
 * page of a list read with the names it shows). Every LMS module shares its tables' SQL this way: a
 * `sql.ts` beside the module's index, exported through it, each entry an expression of the caller's
 * columns.
 */
export const catalogueSql = {
  /** The title of the course whose id is the SQL expression `courseId`, or null. */
  courseTitle: (courseId: string) => `(SELECT c.title FROM lms.lms_courses c WHERE c.id = ${courseId})`,
};
