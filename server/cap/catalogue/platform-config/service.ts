import {
  DataTypes,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';
import { notFound } from '../../../platform/http/errors.ts';
import { newId } from '../../../platform/ids.ts';
import type { Money } from '../../../platform/money.ts';
import type { ApplicationType } from '../../applications/index.ts';

export const policyKinds = ['terms', 'privacy', 'pricing'] as const;
export type PolicyKind = (typeof policyKinds)[number];

/** What the platform applies: price floors by application type and its fee. */
export interface PlatformConfig {
  version: number;
  floors: Record<ApplicationType, Money>;
  feeBasisPoints: number;
  publishedAt: string;
}

interface ConfigRow extends Model<InferAttributes<ConfigRow>, InferCreationAttributes<ConfigRow>> {
  version: number;
  floors: Record<ApplicationType, Money>;
  feeBasisPoints: number;
  publishedBy: string | null;
  publishedAt: Date;
}

interface PolicyRow extends Model<InferAttributes<PolicyRow>, InferCreationAttributes<PolicyRow>> {
  id: string;
  kind: PolicyKind;
  version: number;
  title: string;
  body: string;
  publishedBy: string;
  publishedAt: Date;
}

const configOf = (row: ConfigRow): PlatformConfig => ({
  version: row.version,
  floors: row.floors,
  feeBasisPoints: row.feeBasisPoints,
  publishedAt: row.publishedAt.toISOString(),
});

const policyOf = (row: PolicyRow) => ({
  id: row.id,
  kind: row.kind,
  version: row.version,
  title: row.title,
  body: row.body,
  publishedAt: row.publishedAt.toISOString(),
});

/**
 * Versioned platform settings (price floors, the fee) and documents (terms, privacy, pricing). Each
 * change publishes a new version; the newest is what the platform applies, and the older ones stay.
 * Versions are numbered under a lock, so two admins publishing at once get consecutive numbers.
 */
export function createPlatformConfig(sequelize: Sequelize) {
  const Config: ModelStatic<ConfigRow> = sequelize.define<ConfigRow>(
    'PlatformConfigVersion',
    {
      version: { type: DataTypes.INTEGER, primaryKey: true },
      floors: { type: DataTypes.JSONB, allowNull: false },
      feeBasisPoints: { type: DataTypes.INTEGER, allowNull: false },
      publishedBy: { type: DataTypes.STRING(26), allowNull: true },
      publishedAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'platform_config_versions', timestamps: false },
  );
  const Policy: ModelStatic<PolicyRow> = sequelize.define<PolicyRow>(
    'PolicyVersion',
    {
      id: { type: DataTypes.STRING(26), primaryKey: true },
      kind: { type: DataTypes.STRING(32), allowNull: false },
      version: { type: DataTypes.INTEGER, allowNull: false },
      title: { type: DataTypes.STRING(200), allowNull: false },
      body: { type: DataTypes.TEXT, allowNull: false },
      publishedBy: { type: DataTypes.STRING(26), allowNull: false },
      publishedAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'policy_versions', timestamps: false },
  );

  const latest = async () => (await Config.findOne({ order: [['version', 'DESC']] }))!;
  /** The newest published version of a document, or null. */
  const latestPolicy = async (kind: PolicyKind) => {
    const row = await Policy.findOne({ where: { kind }, order: [['version', 'DESC']] });
    return row ? policyOf(row) : null;
  };

  return {
    /** What the platform applies now. */
    current: async () => configOf(await latest()),

    /** Publishes a new version when the change changes something; `published` says whether it did. */
    async update(
      adminId: string,
      change: { floors?: Partial<Record<ApplicationType, Money>>; feeBasisPoints?: number },
    ) {
      return sequelize.transaction(async (transaction) => {
        await sequelize.query(`LOCK TABLE cap.platform_config_versions IN SHARE ROW EXCLUSIVE MODE`, { transaction });
        const now = (await Config.findOne({ order: [['version', 'DESC']], transaction }))!;
        const next = {
          floors: { ...now.floors, ...change.floors },
          feeBasisPoints: change.feeBasisPoints ?? now.feeBasisPoints,
        };
        if (JSON.stringify(next) === JSON.stringify({ floors: now.floors, feeBasisPoints: now.feeBasisPoints })) {
          return { ...configOf(now), published: false };
        }
        const row = await Config.create(
          { version: now.version + 1, ...next, publishedBy: adminId, publishedAt: new Date() },
          { transaction },
        );
        return { ...configOf(row), published: true };
      });
    },

    history: async () => (await Config.findAll({ order: [['version', 'DESC']] })).map(configOf),

    async publishPolicy(adminId: string, kind: PolicyKind, document: { title: string; body: string }) {
      return sequelize.transaction(async (transaction) => {
        await sequelize.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, { bind: [`policy:${kind}`], transaction });
        const version = (((await Policy.max('version', { where: { kind }, transaction })) as number | null) ?? 0) + 1;
        const row = await Policy.create(
          {
            id: newId(),
            kind,
            version,
            title: document.title.trim(),
            body: document.body,
            publishedBy: adminId,
            publishedAt: new Date(),
          },
          { transaction },
        );
        return policyOf(row);
      });
    },

    policyVersions: async (kind: PolicyKind) =>
      (await Policy.findAll({ where: { kind }, order: [['version', 'DESC']] })).map(policyOf),

    /** The newest published version of a document, or 404 when none was published. */
    async currentPolicy(kind: PolicyKind) {
      const policy = await latestPolicy(kind);
      if (!policy) throw notFound(`No ${kind} have been published yet.`);
      return policy;
    },

    latestPolicy,
  };
}

export type PlatformConfigService = ReturnType<typeof createPlatformConfig>;
