import nodemailer, { type Transporter } from 'nodemailer';
import type { Transaction } from 'sequelize';
import { notFound } from '../../platform/http/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { ServiceDeps } from '../../platform/service.ts';
import { defineNotificationModels, type DevMailRow } from './models.ts';
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

export type Notifications = ReturnType<typeof createNotifications>;

/** Addresses are compared the way account emails are stored. */
const normaliseAddress = (address: string) => address.trim().toLowerCase();

/**
 * The notifications send path. A mail is rendered and queued in the caller's transaction, and
 * `notification.requested` (metadata only) is published in that same transaction; the `ol.mailer`
 * consumer then delivers it. Transport: the dev mailbox in development mode (every mail is kept
 * there), and SMTP whenever MAIL_URL is set.
 */
export function createNotifications(deps: ServiceDeps) {
  const { config, logger, events } = deps;
  const { Notification, DevMail } = defineNotificationModels(deps.sequelize);
  let smtp: Transporter | undefined;

  async function deliver(to: string, template: TemplateName, mail: RenderedMail, notificationId: string, transaction?: Transaction) {
    if (config.mailUrl) {
      smtp ??= nodemailer.createTransport(config.mailUrl);
      await smtp.sendMail({ from: config.mailFrom, to, subject: mail.subject, text: mail.text });
    }
    if (config.devMode) {
      await DevMail.create(
        {
          id: newId(),
          notificationId,
          toAddress: to,
          template,
          subject: mail.subject,
          text: mail.text,
          otp: mail.secrets.otp ?? null,
          password: mail.secrets.password ?? null,
        },
        { transaction },
      );
    }
  }

  function render(request: Pick<MailRequest, 'template' | 'variables'>, to: string): RenderedMail {
    const expiresInMinutes = String(Math.ceil(config.otpTtlSeconds / 60));
    return renderMail(request.template, { expiresInMinutes, ...request.variables }, to);
  }

  // The event cannot carry the OTP or password, so the rendered body waits in the queue row for the
  // mailer. Once the mail is out the row keeps only metadata: the code exists in the mail alone.
  events.subscribe('notification.requested', 'ol.mailer', async (event, transaction) => {
    const notificationId = String(event.data.notificationId);
    const row = await Notification.findByPk(notificationId, { transaction, lock: transaction.LOCK.UPDATE });
    if (!row || row.text === null) return;
    const template = row.template as TemplateName;
    await deliver(row.toAddress, template, { subject: row.subject, text: row.text, secrets: row.secrets ?? {} }, row.id, transaction);
    await row.update({ text: null, secrets: null, status: 'sent', sentAt: new Date() }, { transaction });
    logger.info({ notificationId, template }, 'mail delivered');
  });

  return {
    /** Queues a mail in the caller's transaction; it goes out once that transaction commits. */
    async requestMail(transaction: Transaction, request: MailRequest): Promise<void> {
      const to = normaliseAddress(request.to);
      const mail = render(request, to);
      const notificationId = newId();
      await Notification.create(
        {
          id: notificationId,
          userId: request.userId ?? null,
          channel: 'email',
          template: request.template,
          toAddress: to,
          subject: mail.subject,
          text: mail.text,
          secrets: config.devMode ? mail.secrets : null,
          status: 'pending',
          sentAt: null,
        },
        { transaction },
      );
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
     * in the mail that carries them. Only the mail's metadata is recorded.
     */
    async sendMailNow(request: { to: string; userId?: string; template: 'provisioned_account'; variables: Record<string, string> }): Promise<void> {
      const to = normaliseAddress(request.to);
      const mail = render(request, to);
      const notificationId = newId();
      await deliver(to, request.template, mail, notificationId);
      await Notification.create({
        id: notificationId,
        userId: request.userId ?? null,
        channel: 'email',
        template: request.template,
        toAddress: to,
        subject: mail.subject,
        text: null,
        secrets: null,
        status: 'sent',
        sentAt: new Date(),
      });
      logger.info({ notificationId, template: request.template }, 'mail delivered');
    },

    /** The dev mailbox of one address, newest first. Off (404) outside development mode. */
    async devMailbox(address: string, limit: number): Promise<DevMail[]> {
      if (!config.devMode) throw notFound('The dev mailbox exists only in development mode.');
      const rows = await DevMail.findAll({ where: { toAddress: normaliseAddress(address) }, order: [['id', 'DESC']], limit });
      return rows.map(toDevMail);
    },

    async stop(): Promise<void> {
      smtp?.close();
    },
  };
}

function toDevMail(row: DevMailRow): DevMail {
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
