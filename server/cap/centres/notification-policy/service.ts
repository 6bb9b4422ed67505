import {
  DataTypes,
  Op,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
  type Transaction,
} from 'sequelize';
import { forbidden, unprocessable, type ErrorDetail } from '../../../platform/http/errors.ts';
import type { CentreService } from '../service.ts';
import type { CentreContext } from '../../people/index.ts';
import type { CentreRole } from '../vocabulary.ts';

export const policyEvents = ['application.submitted', 'application.paid'] as const;
export type PolicyEvent = (typeof policyEvents)[number];

export interface EventRecipients {
  event: PolicyEvent;
  recipientCapUserIds?: string[];
  recipientRoles?: CentreRole[];
}

interface PolicyRow extends Model<InferAttributes<PolicyRow>, InferCreationAttributes<PolicyRow>> {
  centreId: string;
  events: Array<Required<EventRecipients>>;
  updatedBy: string;
}

/** Until a super admin says otherwise, the centre's admins hear of each event. */
const byDefault = (event: PolicyEvent): Required<EventRecipients> => ({
  event,
  recipientCapUserIds: [],
  recipientRoles: ['super_admin', 'regular_admin'],
});

const normalised = (entry: EventRecipients): Required<EventRecipients> => ({
  event: entry.event,
  recipientCapUserIds: [...new Set(entry.recipientCapUserIds ?? [])],
  recipientRoles: [...new Set(entry.recipientRoles ?? [])],
});

/**
 * A centre's notification policy (CentreNotificationPolicy): for each event, the people (CAP user ids,
 * who must be the centre's active staff) and the roles that hear of it. Every event is always listed:
 * one the centre never set shows its default. PUT replaces the policy (unlisted events go back to
 * their default); PATCH replaces only the events it lists. Super admins change it; anyone reads it.
 * CAP applies it when the event happens (`announce`).
 */
export function createNotificationPolicies(sequelize: Sequelize, centres: CentreService) {
  const { Centre, CentreStaff } = centres.models;
  const Policy: ModelStatic<PolicyRow> = sequelize.define<PolicyRow>(
    'CentreNotificationPolicy',
    {
      centreId: { type: DataTypes.STRING(26), primaryKey: true },
      events: { type: DataTypes.JSONB, allowNull: false },
      updatedBy: { type: DataTypes.STRING(26), allowNull: false },
    },
    { tableName: 'centre_notification_policies' },
  );

  const policyOf = (stored: Array<Required<EventRecipients>>) => ({
    events: policyEvents.map((event) => stored.find((entry) => entry.event === event) ?? byDefault(event)),
  });

  /** Each event once; every named person one of the centre's active staff. */
  async function check(centreId: string, entries: EventRecipients[], transaction: Transaction): Promise<void> {
    const details: ErrorDetail[] = [];
    entries.forEach((entry, i) => {
      if (entries.findIndex((other) => other.event === entry.event) < i)
        details.push({ field: `events[${i}].event`, issue: 'is listed twice' });
    });
    if (details.length) throw unprocessable('validation.failed', 'List each event once.', details);
    const named = [...new Set(entries.flatMap((entry) => entry.recipientCapUserIds ?? []))];
    const staff = new Set(
      (
        await CentreStaff.findAll({
          where: { centreId, status: 'active', userId: { [Op.in]: named } },
          attributes: ['userId'],
          transaction,
        })
      ).map((row) => row.userId),
    );
    entries.forEach((entry, i) =>
      (entry.recipientCapUserIds ?? []).forEach((userId, j) => {
        if (!staff.has(userId))
          details.push({
            field: `events[${i}].recipientCapUserIds[${j}]`,
            issue: 'is not active staff of this centre',
          });
      }),
    );
    if (details.length)
      throw unprocessable(
        'centre.policy_recipient_not_staff',
        'Notification recipients must be active staff of this centre.',
        details,
      );
  }

  /** Writes the events listed, one change per centre at a time (staff changes lock the centre row too). */
  async function write(context: CentreContext, userId: string, entries: EventRecipients[], keepUnlisted: boolean) {
    if (context.role !== 'super_admin')
      throw forbidden('centre.role_forbidden', 'Only a super admin of the centre can change its notification policy.');
    return sequelize.transaction(async (transaction) => {
      await Centre.findByPk(context.centreId, { transaction, lock: transaction.LOCK.UPDATE });
      await check(context.centreId, entries, transaction);
      const row = await Policy.findByPk(context.centreId, { transaction });
      const listed = entries.map(normalised);
      const kept = keepUnlisted
        ? (row?.events ?? []).filter((entry) => !listed.some((l) => l.event === entry.event))
        : [];
      const events = [...kept, ...listed];
      await Policy.upsert({ centreId: context.centreId, events, updatedBy: userId }, { transaction });
      return policyOf(events);
    });
  }

  /** The centre's active staff the policy names for an event, by user id or by role, each once. */
  async function recipientsOf(centreId: string, event: PolicyEvent, transaction: Transaction): Promise<string[]> {
    const entry = policyOf((await Policy.findByPk(centreId, { transaction }))?.events ?? []).events.find(
      (e) => e.event === event,
    )!;
    const rows = await CentreStaff.findAll({
      where: {
        centreId,
        status: 'active',
        [Op.or]: [{ role: { [Op.in]: entry.recipientRoles } }, { userId: { [Op.in]: entry.recipientCapUserIds } }],
      },
      attributes: ['userId'],
      order: [['id', 'ASC']],
      transaction,
    });
    return [...new Set(rows.map((row) => row.userId))];
  }

  /** What the centre's people are told of each event. */
  const notices: Record<PolicyEvent, (type: string) => { title: string; description: string }> = {
    'application.submitted': (type) => ({
      title: `New ${type} application`,
      description: `A candidate submitted an ${type} application to your centre. Review it in the applications list.`,
    }),
    'application.paid': (type) => ({
      title: `${type} application paid`,
      description: `A candidate paid the fee of an ${type} application to your centre; it is in your wallet and the application moves on.`,
    }),
  };

  /**
   * Tells the centre of an application event through the one send path (`notification.requested`, in
   * the consumer's transaction): in the inbox and by email, as each person's preferences allow.
   */
  async function announce(
    event: PolicyEvent,
    application: { applicationId: string; centreId: string; type: string },
    transaction: Transaction,
    publish: (transaction: Transaction, data: Record<string, unknown>) => Promise<unknown>,
  ): Promise<void> {
    for (const userId of await recipientsOf(application.centreId, event, transaction)) {
      await publish(transaction, {
        userId,
        template: event,
        category: 'application',
        ...notices[event](application.type),
        metadata: { applicationId: application.applicationId, centreId: application.centreId },
        channels: ['in_app', 'email'],
      });
    }
  }

  return {
    recipientsOf,
    announce,

    async read(context: CentreContext) {
      return policyOf((await Policy.findByPk(context.centreId))?.events ?? []);
    },
    replace: (context: CentreContext, userId: string, body: { events: EventRecipients[] }) =>
      write(context, userId, body.events, false),
    update: (context: CentreContext, userId: string, body: { events?: EventRecipients[] }) =>
      write(context, userId, body.events ?? [], true),
  };
}

export type NotificationPolicies = ReturnType<typeof createNotificationPolicies>;
