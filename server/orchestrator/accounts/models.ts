import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import { id, reference, timestamps } from '../../platform/db/columns.ts';

export const userStatuses = ['pending_verification', 'active', 'suspended', 'deactivated'] as const;
export type UserStatus = (typeof userStatuses)[number];
export type AuthProvider = 'password' | 'google';
export const otpPurposes = ['account_verify', 'password_reset'] as const;
export type OtpPurpose = (typeof otpPurposes)[number];

/** An Orchestrator account. `email` is stored trimmed and lower-cased. */
export interface UserRow extends Model<InferAttributes<UserRow>, InferCreationAttributes<UserRow>> {
  id: string;
  email: string;
  /** argon2id; null for an account that signs in with Google only, and after deletion. */
  passwordHash: string | null;
  authProvider: AuthProvider;
  googleSub: string | null;
  status: UserStatus;
  intents: string[];
  mustChangePassword: boolean;
  deactivatedAt: Date | null;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** The live one-time code of a user for one purpose (at most one row per pair). */
export interface OtpRow extends Model<InferAttributes<OtpRow>, InferCreationAttributes<OtpRow>> {
  id: string;
  userId: string;
  purpose: OtpPurpose;
  codeHash: string;
  expiresAt: Date;
  attempts: CreationOptional<number>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

/** One request to mail a code to an address (known or not), counted for the hourly limit. */
export interface OtpSendRow extends Model<InferAttributes<OtpSendRow>, InferCreationAttributes<OtpSendRow>> {
  id: string;
  email: string;
  purpose: OtpPurpose;
  createdAt: Date;
}

/** A refresh token, stored as its SHA-256. Rotation marks it used and adds a child in the same family. */
export interface RefreshTokenRow extends Model<
  InferAttributes<RefreshTokenRow>,
  InferCreationAttributes<RefreshTokenRow>
> {
  id: string;
  userId: string;
  familyId: string;
  parentId: string | null;
  tokenHash: string;
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
}

export interface AccountModels {
  User: ModelStatic<UserRow>;
  Otp: ModelStatic<OtpRow>;
  OtpSend: ModelStatic<OtpSendRow>;
  RefreshToken: ModelStatic<RefreshTokenRow>;
}

export function defineAccountModels(sequelize: Sequelize): AccountModels {
  const User = sequelize.define<UserRow>(
    'User',
    {
      id: id(),
      email: { type: DataTypes.STRING(254), allowNull: false },
      passwordHash: { type: DataTypes.TEXT, allowNull: true },
      authProvider: { type: DataTypes.STRING(16), allowNull: false },
      googleSub: { type: DataTypes.STRING(255), allowNull: true },
      status: { type: DataTypes.STRING(32), allowNull: false },
      intents: { type: DataTypes.ARRAY(DataTypes.STRING(16)), allowNull: false },
      mustChangePassword: { type: DataTypes.BOOLEAN, allowNull: false },
      deactivatedAt: { type: DataTypes.DATE, allowNull: true },
      ...timestamps(),
    },
    { tableName: 'users' },
  );
  const Otp = sequelize.define<OtpRow>(
    'Otp',
    {
      id: id(),
      userId: reference(),
      purpose: { type: DataTypes.STRING(32), allowNull: false },
      codeHash: { type: DataTypes.STRING(64), allowNull: false },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      ...timestamps(),
    },
    { tableName: 'otps' },
  );
  const OtpSend = sequelize.define<OtpSendRow>(
    'OtpSend',
    {
      id: id(),
      email: { type: DataTypes.STRING(254), allowNull: false },
      purpose: { type: DataTypes.STRING(32), allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'otp_sends', updatedAt: false },
  );
  const RefreshToken = sequelize.define<RefreshTokenRow>(
    'RefreshToken',
    {
      id: id(),
      userId: reference(),
      familyId: reference(),
      parentId: reference(true),
      tokenHash: { type: DataTypes.STRING(64), allowNull: false },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      usedAt: { type: DataTypes.DATE, allowNull: true },
      revokedAt: { type: DataTypes.DATE, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'refresh_tokens', updatedAt: false },
  );
  return { User, Otp, OtpSend, RefreshToken };
}
