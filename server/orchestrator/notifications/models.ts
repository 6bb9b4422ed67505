import {
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type CreationOptional,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import { defineLifecycle } from '../../platform/lifecycle.ts';
import type { MailSecrets } from './templates.ts';
import { id, reference, timestamps } from '../../platform/db/columns.ts';

export const channels = ['email', 'sms', 'in_app'] as const;
export type Channel = (typeof channels)[number];
export const categories = ['application', 'assessment', 'system', 'security'] as const;
export type Category = (typeof categories)[number];

/**
 * The life of a channel delivery, as data: a mail the Orchestrator renders waits `pending` for the
 * consumer, which sends it or, by the recipient's preferences, suppresses it; a delivery handled at
 * once is recorded in its outcome (sent, suppressed, or undeliverable: no address or no transport).
 * Each move is named by the status it leads to.
 */
export const deliveryLifecycle = defineLifecycle({
  subject: 'notification',
  statuses: ['pending', 'sent', 'suppressed', 'undeliverable'],
  movers: ['orchestrator'],
  moves: {
    pending: { from: [null], to: 'pending', by: ['orchestrator'] },
    sent: { from: [null, 'pending'], to: 'sent', by: ['orchestrator'] },
    suppressed: { from: [null, 'pending'], to: 'suppressed', by: ['orchestrator'] },
    undeliverable: { from: [null], to: 'undeliverable', by: ['orchestrator'] },
  },
});

/** One channel delivery (email or sms): a mail is rendered when requested, delivered by the `ol.notifications` consumer. */
export interface NotificationRow extends Model<
  InferAttributes<NotificationRow>,
  InferCreationAttributes<NotificationRow>
> {
  id: string;
  userId: string | null;
  channel: 'email' | 'sms';
  template: string;
  toAddress: string;
  subject: string;
  /** The rendered body, which may carry an OTP or a password: null once the mail is delivered. */
  text: string | null;
  /** Development mode only: the OTP or password of the body, for the dev mailbox; erased with the body. */
  secrets: MailSecrets | null;
  /** `suppressed`: the recipient's preferences turned the channel off; `undeliverable`: no address or no transport. */
  status: (typeof deliveryLifecycle.statuses)[number];
  sentAt: Date | null;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** A mail as the dev mailbox keeps it (development mode only), with its secret pulled out for tools. */
export interface DevMailRow extends Model<InferAttributes<DevMailRow>, InferCreationAttributes<DevMailRow>> {
  id: string;
  notificationId: string | null;
  toAddress: string;
  template: string;
  subject: string;
  text: string;
  otp: string | null;
  password: string | null;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** A notification in a user's inbox (the in_app channel). */
export interface InboxItemRow extends Model<InferAttributes<InboxItemRow>, InferCreationAttributes<InboxItemRow>> {
  id: string;
  userId: string;
  category: Category;
  type: string;
  title: string;
  description: string;
  link: string | null;
  metadata: Record<string, unknown> | null;
  readAt: Date | null;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** A user's channel preferences; no row means every channel on. */
export interface PreferenceRow extends Model<InferAttributes<PreferenceRow>, InferCreationAttributes<PreferenceRow>> {
  userId: string;
  email: boolean;
  sms: boolean;
  inApp: boolean;
  smsNumber: string | null;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** An SMS as the dev sink keeps it (development mode only). */
export interface DevSmsRow extends Model<InferAttributes<DevSmsRow>, InferCreationAttributes<DevSmsRow>> {
  id: string;
  notificationId: string;
  toNumber: string;
  text: string;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export interface NotificationModels {
  Notification: ModelStatic<NotificationRow>;
  DevMail: ModelStatic<DevMailRow>;
  InboxItem: ModelStatic<InboxItemRow>;
  Preference: ModelStatic<PreferenceRow>;
  DevSms: ModelStatic<DevSmsRow>;
}

export function defineNotificationModels(sequelize: Sequelize): NotificationModels {
  const Notification = sequelize.define<NotificationRow>(
    'Notification',
    {
      id: id(),
      userId: reference(true),
      channel: { type: DataTypes.STRING(16), allowNull: false },
      template: { type: DataTypes.STRING(64), allowNull: false },
      toAddress: { type: DataTypes.STRING(320), allowNull: false },
      subject: { type: DataTypes.TEXT, allowNull: false },
      text: { type: DataTypes.TEXT, allowNull: true },
      secrets: { type: DataTypes.JSONB, allowNull: true },
      status: { type: DataTypes.STRING(16), allowNull: false },
      sentAt: { type: DataTypes.DATE, allowNull: true },
      ...timestamps(),
    },
    { tableName: 'notifications' },
  );

  const DevMail = sequelize.define<DevMailRow>(
    'DevMail',
    {
      id: id(),
      notificationId: reference(true),
      toAddress: { type: DataTypes.STRING(320), allowNull: false },
      template: { type: DataTypes.STRING(64), allowNull: false },
      subject: { type: DataTypes.TEXT, allowNull: false },
      text: { type: DataTypes.TEXT, allowNull: false },
      otp: { type: DataTypes.STRING(16), allowNull: true },
      password: { type: DataTypes.STRING(128), allowNull: true },
      ...timestamps(),
    },
    { tableName: 'dev_mailbox' },
  );

  const InboxItem = sequelize.define<InboxItemRow>(
    'InboxItem',
    {
      id: id(),
      userId: reference(),
      category: { type: DataTypes.STRING(16), allowNull: false },
      type: { type: DataTypes.STRING(64), allowNull: false },
      title: { type: DataTypes.TEXT, allowNull: false },
      description: { type: DataTypes.TEXT, allowNull: false },
      link: { type: DataTypes.TEXT, allowNull: true },
      metadata: { type: DataTypes.JSONB, allowNull: true },
      readAt: { type: DataTypes.DATE, allowNull: true },
      ...timestamps(),
    },
    { tableName: 'inbox_notifications' },
  );

  const Preference = sequelize.define<PreferenceRow>(
    'NotificationPreference',
    {
      userId: id(),
      email: { type: DataTypes.BOOLEAN, allowNull: false },
      sms: { type: DataTypes.BOOLEAN, allowNull: false },
      inApp: { type: DataTypes.BOOLEAN, allowNull: false },
      smsNumber: { type: DataTypes.STRING(20), allowNull: true },
      ...timestamps(),
    },
    { tableName: 'notification_preferences' },
  );

  const DevSms = sequelize.define<DevSmsRow>(
    'DevSms',
    {
      id: id(),
      notificationId: reference(),
      toNumber: { type: DataTypes.STRING(20), allowNull: false },
      text: { type: DataTypes.TEXT, allowNull: false },
      ...timestamps(),
    },
    { tableName: 'dev_sms' },
  );

  return { Notification, DevMail, InboxItem, Preference, DevSms };
}
