import type { Sequelize } from 'sequelize';
import { conflict, forbidden, notFound } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import type { Access, Actor } from '../../people/index.ts';
import { defineUserModels } from '../../people/index.ts';
import { defineCourseModels, type CourseInstructorRole } from './models.ts';
import type { Courses } from './service.ts';
import { instructorView } from './views.ts';

export type CourseInstructors = ReturnType<typeof createCourseInstructors>;

/** A course's owner and co-instructors: the owner or staff add and remove co-instructors; a course keeps its owner. */
export function createCourseInstructors(sequelize: Sequelize, access: Access, courses: Courses) {
  const { CourseInstructor } = defineCourseModels(sequelize);
  const { LmsUser } = defineUserModels(sequelize);

  async function list(actor: Actor, courseId: string) {
    await courses.editable(actor, courseId);
    const assignments = await CourseInstructor.findAll({
      where: { courseId },
      order: [
        ['createdAt', 'ASC'],
        ['id', 'ASC'],
      ],
    });
    const people = await LmsUser.findAll({ where: { id: assignments.map((a) => a.lmsUserId) } });
    return assignments.map((a) => instructorView(a, people.find((p) => p.id === a.lmsUserId)?.displayName ?? null));
  }

  async function managed(actor: Actor, courseId: string) {
    await courses.editable(actor, courseId);
    if (!actor.staffRole && (await courses.roleOn(actor, courseId)) !== 'owner') {
      throw forbidden('auth.out_of_scope', "Only the course owner or staff manage a course's instructors.");
    }
  }

  async function add(actor: Actor, courseId: string, lmsUserId: string, role: CourseInstructorRole) {
    await managed(actor, courseId);
    const person = await LmsUser.findByPk(lmsUserId);
    if (!person) throw notFound('No such LMS user.');
    if (!(await access.actorOf(person)).personas.has('instructor')) {
      throw conflict('lms.instructor.conflict', 'That user has not completed the instructor onboarding.');
    }
    return sequelize.transaction(async (transaction) => {
      if (role === 'owner') {
        // One owner per course: a new owner takes over, the previous one stays as a co-instructor.
        await CourseInstructor.update({ role: 'co_instructor' }, { where: { courseId, role: 'owner' }, transaction });
      }
      const [assignment] = await CourseInstructor.bulkCreate([{ id: newId(), courseId, lmsUserId, role }], {
        ignoreDuplicates: true,
        transaction,
      });
      if (!(await CourseInstructor.findByPk(assignment!.id, { transaction }))) {
        throw conflict('lms.instructor.conflict', 'That user is already an instructor of this course.');
      }
      return instructorView(assignment!, person.displayName);
    });
  }

  async function remove(actor: Actor, courseId: string, lmsUserId: string) {
    await managed(actor, courseId);
    const assignment = await CourseInstructor.findOne({ where: { courseId, lmsUserId } });
    if (!assignment) throw notFound('That user is not an instructor of this course.');
    if (assignment.role === 'owner')
      throw conflict(
        'lms.instructor.sole_owner',
        'The owner of a course cannot be removed; make someone else the owner first.',
      );
    await assignment.destroy();
    return { message: 'The co-instructor was removed from the course.' };
  }

  return { list, add, remove };
}
