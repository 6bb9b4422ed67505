import { EventEmitter } from 'node:events';
import type { Transporter } from 'nodemailer';
import { type InferAttributes, type Transaction } from 'sequelize';
import type { PlatformEvent } from '../../platform/events/types.ts';
import { notFound } from '../../platform/http/errors.ts';
import { isoTime } from '../../platform/db/iso-time.ts';
import { Conditions, keysetRows } from '../../platform/db/keyset.ts';
import { prepared, preparedIn, preparedReads } from '../../platform/db/prepared.ts';
import type { PageRequest } from '../../platform/http/pagination.ts';
import { newId } from '../../platform/ids.ts';
import { lifecycleWriter, tableStore } from '../../platform/lifecycle.ts';
import type { ServiceDeps } from '../../platform/service.ts';
import {
  categories,
  defineNotificationModels,
  deliveryLifecycle,
  type Category,
  type Channel,
  type DevMailRow,
  type InboxItemRow,
  type NotificationRow,
  type PreferenceRow,
} from './models.ts';
import { renderMail, type RenderedMail, type TemplateName } from './templates.ts';

export interface MailRequest {
  to: string;
  userId?: string;
  template: TemplateName;
  /** Template variables, e.g. `{ otp }` (account_verify, password_reset) or `{ password, name?, centreName?, role? }` (provisioned_account). */
  variables: Record<string, string>;
}

/** A mail as `GET /dev/mailbox` shows it. */
export interface DevMail {
  id: string;
  to: string;
  template: string;
  subject: string;
  text: string;
  sentAt: string;
  otp?: string;
  password?: string;
}

/** A notification for one user (or one address), as `notify` takes it and `notification.requested` carries it. */
export interface NotificationRequest {
  userId?: string | null;
  /** The email address, when it is not the user's own (or there is no user yet). */
  to?: string | null;
  /** What kind of notification: a mail template name, or a dotted type such as `conversation.message`. */
  template: string;
  category: Category;
  title: string;
  description: string;
  link?: string | null;
  metadata?: Record<string, unknown> | null;
  channels: Channel[];
}

/** NotificationItem of the API. */
export interface InboxItem {
  id: string;
  title: string;
  description: string;
  category: Category;
  type: string;
  read: boolean;
  isUnread: boolean;
  time: string;
  timestamp: string;
  createdAt: string;
  link?: string;
  actionUrl?: string;
  metadata: Record<string, unknown>;
}

export interface Preferences {
  channels: Record<Channel, boolean>;
  smsNumber: string | null;
  /** Sent whatever the preferences say. */
  alwaysSent: string[];
}

export type Notifications = ReturnType<typeof createNotifications>;

/**
 * Mail that reaches its address whatever the recipient's preferences: the codes that let a person in,
 * and the generated password of a provisioned account.
 */
export const essentialTemplates: readonly string[] = ['account_verify', 'password_reset', 'provisioned_account'];

/** How the Orchestrator's own mails show in the inbox besides the mail (OTP mails do not: the code is the mail). */
const mailNotices: Record<TemplateName, { category: Category; channels: Channel[] }> = {
  account_verify: { category: 'security', channels: ['email'] },
  password_reset: { category: 'security', channels: ['email'] },
  provisioned_account: { category: 'security', channels: ['email'] },
  security_alert: { category: 'security', channels: ['email', 'in_app'] },
  centre_invitation: { category: 'system', channels: ['email', 'in_app'] },
};

/** Addresses are compared the way account emails are stored. */
const normaliseAddress = (address: string) => address.trim().toLowerCase();

/**
 * The one send path. Every notification, the Orchestrator's own mails as well as CAP's and the
 * LMS's, is a `notification.requested` event (metadata and display text only, never a code or a
 * password); the `ol.notifications` consumer turns it into an inbox row and channel deliveries, as
 * the recipient's preferences allow. A mail that carries a code is rendered when requested and waits
 * in its delivery row for the consumer, which erases the body once it is out. Transports: the dev
 * mailbox and dev SMS sink in development mode, SMTP whenever MAIL_URL is set.
 */
export function createNotifications(deps: ServiceDeps & { userEmail?(userId: string): Promise<string | null> }) {
  const { config, logger, events } = deps;
  const { InboxItem, Preference, DevSms } = defineNotificationModels(deps.sequelize);
  const read = preparedReads(deps.sequelize);
  const write = prepared(deps.sequelize);
  // Written by prepared statements: a delivery is written on every notification event.
  const deliveries = lifecycleWriter(deliveryLifecycle, { store: tableStore<Delivery>('ol.notifications') });
  /** Records a delivery row in its first status (the one writer of a delivery's status). */
  const recordDelivery = (
    transaction: Transaction,
    status: NotificationRow['status'],
    values: Omit<InferAttributes<NotificationRow>, 'status' | 'createdAt' | 'updatedAt'>,
  ) =>
    deliveries.create(
      transaction,
      status,
      {
        id: values.id,
        user_id: values.userId,
        channel: values.channel,
        template: values.template,
        to_address: values.toAddress,
        subject: values.subject,
        text: values.text,
        secrets: values.secrets === null ? null : JSON.stringify(values.secrets),
        sent_at: values.sentAt,
      },
      { by: 'orchestrator' },
    );
  // Loaded with the first mail sent over SMTP (development mode without MAIL_URL never loads it).
  let smtp: Promise<Transporter> | undefined;
  /** Says "a dev mail to this address is in" (its row committed) to the mailbox reads that wait for one. */
  const devMailIn = new EventEmitter().setMaxListeners(0);

  async function deliver(
    to: string,
    template: string,
    mail: RenderedMail,
    notificationId: string,
    transaction?: Transaction,
  ) {
    if (config.mailUrl) {
      smtp ??= import('nodemailer').then(({ default: nodemailer }) => {
        const transport = nodemailer.createTransport(config.mailUrl);
        // A pooled transport reports a connection it lost between mails as an event; the next mail reconnects.
        transport.on('error', (err) => logger.warn({ err }, 'mail transport error'));
        return transport;
      });
      await (await smtp).sendMail({ from: config.mailFrom, to, subject: mail.subject, text: mail.text });
    }
    if (config.devMode) {
      const insert = `INSERT INTO ol.dev_mailbox (id, notification_id, to_address, template, subject, text, otp, password, created_at, updated_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now(), now())`;
      const values = [
        newId(),
        notificationId,
        to,
        template,
        mail.subject,
        mail.text,
        mail.secrets.otp ?? null,
        mail.secrets.password ?? null,
      ];
      await write(insert, values, transaction);
      if (transaction) transaction.afterCommit(() => void devMailIn.emit(to));
      else devMailIn.emit(to);
    }
  }

  /** SMS has only the development sink: with no SMS provider outside development mode it is undeliverable. */
  async function deliverSms(
    to: string,
    text: string,
    notificationId: string,
    transaction: Transaction,
  ): Promise<boolean> {
    if (!config.devMode) return false;
    await DevSms.create({ id: newId(), notificationId, toNumber: to, text }, { transaction });
    return true;
  }

  function render(request: Pick<MailRequest, 'template' | 'variables'>, to: string): RenderedMail {
    const expiresInMinutes = String(Math.ceil(config.otpTtlSeconds / 60));
    return renderMail(request.template, { expiresInMinutes, ...request.variables }, to);
  }

  async function preferencesOf(userId: string | null, transaction?: Transaction): Promise<Preferences> {
    const row = userId ? await Preference.findByPk(userId, { transaction }) : null;
    return toPreferences(row);
  }

  async function publish(
    transaction: Transaction,
    notificationId: string,
    request: NotificationRequest,
  ): Promise<void> {
    await events.publish(transaction, 'notification.requested', {
      notificationId,
      userId: request.userId ?? null,
      to: request.to ? normaliseAddress(request.to) : null,
      template: request.template,
      category: request.category,
      title: request.title,
      description: request.description,
      link: request.link ?? null,
      metadata: request.metadata ?? null,
      channels: request.channels,
    });
  }

  async function handle(event: PlatformEvent, transaction: Transaction): Promise<void> {
    const data = event.data as unknown as NotificationRequest & { notificationId?: string };
    const notificationId = data.notificationId ?? event.id;
    const userId = data.userId ?? null;
    const essential = essentialTemplates.includes(data.template);
    // The recipient's preferences and the delivery row in one statement. Delivery rows are locked first,
    // so a redelivered event waits for the first to finish.
    const [facts] = await preparedIn<{ preferences: PreferenceFields | null; prepared: Delivery | null }>(
      transaction,
      `SELECT (SELECT row_to_json(p) FROM (SELECT email, sms, in_app AS "inApp", sms_number AS "smsNumber"
                 FROM ol.notification_preferences WHERE user_id = $2) p) AS preferences,
              (SELECT row_to_json(d) FROM (SELECT id, status, template, to_address AS "toAddress", subject, text, secrets
                 FROM ol.notifications WHERE id = $1 FOR UPDATE) d) AS prepared`,
      [notificationId, userId],
    );
    const preferences = toPreferences(facts!.preferences);
    const prepared = facts!.prepared;
    // The mail form (an Orchestrator mail prepared by requestMail) names no channels: its template does.
    const notice = mailNotices[data.template as TemplateName];
    const requested: Channel[] = data.channels ?? notice?.channels ?? ['email'];
    const title = data.title ?? prepared?.subject ?? data.template;
    const wanted = (channel: Channel) => requested.includes(channel) && (essential || preferences.channels[channel]);

    if (wanted('in_app') && userId) {
      const category = (categories as readonly string[]).includes(data.category)
        ? data.category
        : (notice?.category ?? 'system');
      // One INSERT ... ON CONFLICT DO NOTHING (findOrCreate made a SELECT, a savepoint and a temporary function).
      // A prepared mail's body may carry a code: the inbox shows its subject (the title) only.
      await preparedIn(
        transaction,
        `INSERT INTO ol.inbox_notifications (id, user_id, category, type, title, description, link, metadata, read_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, now(), now()) ON CONFLICT DO NOTHING`,
        [
          notificationId,
          userId,
          category,
          data.template,
          title,
          data.description ?? title,
          data.link ?? null,
          data.metadata == null ? null : JSON.stringify(data.metadata),
        ],
      );
    }

    // Email: an Orchestrator mail waits in its delivery row (without the row there is nothing to send);
    // others are rendered here from the event.
    if (prepared) {
      if (prepared.text === null) return void (await sms());
      if (wanted('email')) {
        await deliver(
          prepared.toAddress,
          prepared.template,
          { subject: prepared.subject, text: prepared.text, secrets: prepared.secrets ?? {} },
          prepared.id,
          transaction,
        );
        await deliveries.move(transaction, prepared, 'sent', {
          by: 'orchestrator',
          changes: { text: null, secrets: null, sent_at: new Date() },
        });
        logger.info({ notificationId, template: prepared.template }, 'mail delivered');
      } else {
        await deliveries.move(transaction, prepared, 'suppressed', {
          by: 'orchestrator',
          changes: { text: null, secrets: null },
        });
        logger.info({ notificationId, template: prepared.template }, 'mail suppressed by preferences');
      }
    } else if (requested.includes('email') && !notice) {
      const to = data.to ?? (userId && deps.userEmail ? await deps.userEmail(userId) : null);
      const mail = {
        subject: title,
        text: [data.description, ...(data.link ? ['', data.link] : [])].join('\n'),
        secrets: {},
      };
      const status = !to ? 'undeliverable' : wanted('email') ? 'sent' : 'suppressed';
      if (status === 'sent') await deliver(to!, data.template, mail, notificationId, transaction);
      await recordDelivery(transaction, status, {
        id: notificationId,
        userId,
        channel: 'email',
        template: data.template,
        toAddress: to ?? '',
        subject: title,
        text: null,
        secrets: null,
        sentAt: status === 'sent' ? new Date() : null,
      });
      logger.info({ notificationId, template: data.template, status }, 'mail handled');
    }
    await sms();

    async function sms() {
      if (!requested.includes('sms')) return;
      const to = preferences.smsNumber;
      const sent =
        wanted('sms') && to
          ? await deliverSms(to, `${title}: ${data.description ?? ''}`.slice(0, 320), notificationId, transaction)
          : false;
      const status = !wanted('sms') ? 'suppressed' : sent ? 'sent' : 'undeliverable';
      await recordDelivery(transaction, status, {
        id: newId(),
        userId,
        channel: 'sms',
        template: data.template,
        toAddress: to ?? '',
        subject: title,
        text: null,
        secrets: null,
        sentAt: sent ? new Date() : null,
      });
    }
  }

  events.subscribe('notification.requested', 'ol.notifications', handle);

  const inboxWhere = (
    userId: string,
    filter: { read?: boolean; category?: Category; status?: 'all' | 'read' | 'unread' },
  ) => {
    const read = filter.status === 'read' ? true : filter.status === 'unread' ? false : filter.read;
    const where = new Conditions().add('x.user_id = ?', userId);
    if (filter.category) where.add('x.category = ?', filter.category);
    if (read !== undefined) where.add(read ? 'x.read_at IS NOT NULL' : 'x.read_at IS NULL');
    return where;
  };

  async function ownItem(userId: string, id: string): Promise<InboxItemRow> {
    const item = await InboxItem.findOne({ where: { id, userId } });
    if (!item) throw notFound('No such notification.');
    return item;
  }

  return {
    /** Requests a notification in the caller's transaction: it is delivered once that transaction commits. */
    async notify(transaction: Transaction, request: NotificationRequest): Promise<string> {
      const notificationId = newId();
      await publish(transaction, notificationId, request);
      return notificationId;
    },

    /** Queues one of the Orchestrator's mails in the caller's transaction; it goes out once that transaction commits. */
    async requestMail(transaction: Transaction, request: MailRequest): Promise<void> {
      const to = normaliseAddress(request.to);
      const mail = render(request, to);
      const notificationId = newId();
      await recordDelivery(transaction, 'pending', {
        id: notificationId,
        userId: request.userId ?? null,
        channel: 'email',
        template: request.template,
        toAddress: to,
        subject: mail.subject,
        text: mail.text,
        secrets: config.devMode ? mail.secrets : null,
        sentAt: null,
      });
      // The mail form of the event: the consumer finds the rest in the delivery row and `mailNotices`.
      await events.publish(transaction, 'notification.requested', {
        notificationId,
        userId: request.userId ?? null,
        channel: 'email',
        template: request.template,
        to,
      });
    },

    /**
     * Sends at once, without the queue or an event: for generated passwords, which must exist only
     * in the mail that carries them. Only the mail's metadata is recorded; the inbox notice that
     * follows goes the one send path and carries no password.
     */
    async sendMailNow(request: {
      to: string;
      userId?: string;
      template: 'provisioned_account';
      variables: Record<string, string>;
    }): Promise<void> {
      const to = normaliseAddress(request.to);
      const mail = render(request, to);
      const notificationId = newId();
      await deliver(to, request.template, mail, notificationId);
      await deps.sequelize.transaction((transaction) =>
        recordDelivery(transaction, 'sent', {
          id: notificationId,
          userId: request.userId ?? null,
          channel: 'email',
          template: request.template,
          toAddress: to,
          subject: mail.subject,
          text: null,
          secrets: null,
          sentAt: new Date(),
        }),
      );
      logger.info({ notificationId, template: request.template }, 'mail delivered');
      // The inbox says the account exists and where the password went, never the password itself.
      if (request.userId) {
        const userId = request.userId;
        await deps.sequelize.transaction((transaction) =>
          publish(transaction, newId(), {
            userId,
            template: request.template,
            category: 'security',
            title: mail.subject,
            description: `Your temporary password was mailed to ${to}. You will choose your own when you first sign in.`,
            metadata: { centreName: request.variables.centreName ?? null, role: request.variables.role ?? null },
            channels: ['in_app'],
          }),
        );
      }
    },

    async list(
      userId: string,
      page: PageRequest,
      filter: { read?: boolean; category?: Category; status?: 'all' | 'read' | 'unread' },
    ) {
      // Plain rows: what the item shows, no model instances, the times as the wire writes them (no Date a row).
      const { items, meta } = await keysetRows<InboxFields>(read, page, {
        select: `x.id, x.title, x.description, x.category, x.type, ${isoTime('x.read_at')} AS "readAt",
          ${isoTime('x.created_at')} AS "createdAt", x.link, x.metadata`,
        from: 'ol.inbox_notifications x',
        where: inboxWhere(userId, filter),
        key: 'x.id',
        desc: true,
      });
      return { items: items.map(toInboxItem), meta };
    },

    async unreadCount(userId: string): Promise<{ unreadCount: number }> {
      return { unreadCount: await InboxItem.count({ where: { userId, readAt: null } }) };
    },

    async markRead(userId: string, id: string): Promise<InboxItem> {
      const item = await ownItem(userId, id);
      if (!item.readAt) await item.update({ readAt: new Date() });
      return toInboxItem(item);
    },

    async markAllRead(userId: string): Promise<{ updated: number }> {
      const [updated] = await InboxItem.update({ readAt: new Date() }, { where: { userId, readAt: null } });
      return { updated };
    },

    async remove(userId: string, id: string): Promise<{ id: string; deleted: true }> {
      await (await ownItem(userId, id)).destroy();
      return { id, deleted: true };
    },

    preferences: (userId: string) => preferencesOf(userId),

    async setPreferences(
      userId: string,
      input: { channels?: Partial<Record<Channel, boolean>>; smsNumber?: string | null },
    ): Promise<Preferences> {
      const current = await preferencesOf(userId);
      const next = { ...current.channels, ...input.channels };
      const smsNumber = input.smsNumber === undefined ? current.smsNumber : input.smsNumber;
      await Preference.upsert({ userId, email: next.email, sms: next.sms, inApp: next.in_app, smsNumber });
      return preferencesOf(userId);
    },

    /**
     * The dev mailbox of one address, newest first. Off (404) outside development mode. With
     * `waitSeconds`, answers once the address has a mail newer than `after` (any mail without it), or
     * when the time is up: a mail that comes in wakes the read at once (another process's mail, within a second).
     */
    async devMailbox(
      address: string,
      limit: number,
      wait: { after?: string; waitSeconds?: number } = {},
    ): Promise<DevMail[]> {
      if (!config.devMode) throw notFound('The dev mailbox exists only in development mode.');
      const to = normaliseAddress(address);
      const deadline = Date.now() + (wait.waitSeconds ?? 0) * 1000;
      for (;;) {
        let wake = () => {};
        const woken = new Promise<void>((resolve) => (wake = resolve));
        // Listening before the read: a mail committed between the two is not missed.
        devMailIn.on(to, wake);
        try {
          const rows = await read<DevMailFields>(
            'notifications.dev-mailbox',
            `SELECT id, to_address AS "toAddress", template, subject, text, otp, password, created_at AS "createdAt"
               FROM ol.dev_mailbox WHERE to_address = $1 ORDER BY id DESC LIMIT $2`,
            [to, limit],
          );
          const newer = rows.length > 0 && (wait.after === undefined || rows[0]!.id > wait.after);
          const left = deadline - Date.now();
          if (newer || left <= 0) return rows.map(toDevMail);
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([woken, new Promise((resolve) => (timer = setTimeout(resolve, Math.min(left, 1000))))]);
          clearTimeout(timer);
        } finally {
          devMailIn.off(to, wake);
        }
      }
    },

    /** The dev SMS sink of one number, newest first. Off (404) outside development mode. */
    async devSms(to: string, limit: number) {
      if (!config.devMode) throw notFound('The dev SMS sink exists only in development mode.');
      const rows = await DevSms.findAll({ where: { toNumber: to.trim() }, order: [['id', 'DESC']], limit });
      return rows.map((r) => ({ id: r.id, to: r.toNumber, text: r.text, sentAt: r.createdAt.toISOString() }));
    },

    async stop(): Promise<void> {
      (await smtp?.catch(() => undefined))?.close();
    },
  };
}

type PreferenceFields = Pick<PreferenceRow, 'email' | 'sms' | 'inApp' | 'smsNumber'>;
/** A delivery row as the consumer reads it (the columns it sends from). */
type Delivery = Pick<NotificationRow, 'id' | 'status' | 'template' | 'toAddress' | 'subject' | 'text' | 'secrets'>;

function toPreferences(row: PreferenceFields | null): Preferences {
  return {
    channels: { email: row?.email ?? true, sms: row?.sms ?? true, in_app: row?.inApp ?? true },
    smsNumber: row?.smsNumber ?? null,
    alwaysSent: [...essentialTemplates],
  };
}

/** An inbox item's fields: of a model instance, or of a page's row with its times as ISO text (`isoTime`). */
type InboxFields = Pick<InboxItemRow, 'id' | 'title' | 'description' | 'category' | 'type' | 'link' | 'metadata'> & {
  readAt: Date | string | null;
  createdAt: Date | string;
};

function toInboxItem(row: InboxFields): InboxItem {
  const at = typeof row.createdAt === 'string' ? row.createdAt : row.createdAt.toISOString();
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    category: row.category,
    type: row.type,
    read: row.readAt !== null,
    isUnread: row.readAt === null,
    time: at,
    timestamp: at,
    createdAt: at,
    // Undefined without a link, which JSON leaves out (a spread per row cost the page its share).
    link: row.link || undefined,
    actionUrl: row.link || undefined,
    metadata: row.metadata ?? {},
  };
}

type DevMailFields = Pick<
  DevMailRow,
  'id' | 'toAddress' | 'template' | 'subject' | 'text' | 'otp' | 'password' | 'createdAt'
>;

function toDevMail(row: DevMailFields): DevMail {
  return {
    id: row.id,
    to: row.toAddress,
    template: row.template,
    subject: row.subject,
    text: row.text,
    sentAt: row.createdAt.toISOString(),
    ...(row.otp ? { otp: row.otp } : {}),
    ...(row.password ? { password: row.password } : {}),
  };
}
