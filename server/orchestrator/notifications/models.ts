import { DataTypes, type InferAttributes, type InferCreationAttributes, type CreationOptional, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import type { MailSecrets } from './templates.ts';

/** One outgoing mail: rendered when requested, delivered by the `ol.mailer` consumer. */
export interface NotificationRow extends Model<InferAttributes<NotificationRow>, InferCreationAttributes<NotificationRow>> {
  id: string;
  userId: string | null;
  channel: 'email';
  template: string;
  toAddress: string;
  subject: string;
  /** The rendered body, which may carry an OTP or a password: null once the mail is delivered. */
  text: string | null;
  /** Development mode only: the OTP or password of the body, for the dev mailbox; erased with the body. */
  secrets: MailSecrets | null;
  status: 'pending' | 'sent';
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

export interface NotificationModels {
  Notification: ModelStatic<NotificationRow>;
  DevMail: ModelStatic<DevMailRow>;
}

export function defineNotificationModels(sequelize: Sequelize): NotificationModels {
  const Notification = sequelize.define<NotificationRow>('Notification', {
    id: { type: DataTypes.STRING(26), primaryKey: true },
    userId: { type: DataTypes.STRING(26), allowNull: true },
    channel: { type: DataTypes.STRING(16), allowNull: false },
    template: { type: DataTypes.STRING(64), allowNull: false },
    toAddress: { type: DataTypes.STRING(320), allowNull: false },
    subject: { type: DataTypes.TEXT, allowNull: false },
    text: { type: DataTypes.TEXT, allowNull: true },
    secrets: { type: DataTypes.JSONB, allowNull: true },
    status: { type: DataTypes.STRING(16), allowNull: false },
    sentAt: { type: DataTypes.DATE, allowNull: true },
    createdAt: DataTypes.DATE,
    updatedAt: DataTypes.DATE,
  }, { tableName: 'notifications' });

  const DevMail = sequelize.define<DevMailRow>('DevMail', {
    id: { type: DataTypes.STRING(26), primaryKey: true },
    notificationId: { type: DataTypes.STRING(26), allowNull: true },
    toAddress: { type: DataTypes.STRING(320), allowNull: false },
    template: { type: DataTypes.STRING(64), allowNull: false },
    subject: { type: DataTypes.TEXT, allowNull: false },
    text: { type: DataTypes.TEXT, allowNull: false },
    otp: { type: DataTypes.STRING(16), allowNull: true },
    password: { type: DataTypes.STRING(128), allowNull: true },
    createdAt: DataTypes.DATE,
    updatedAt: DataTypes.DATE,
  }, { tableName: 'dev_mailbox' });

  return { Notification, DevMail };
}
