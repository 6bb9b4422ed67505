import { DataTypes } from 'sequelize';

// Column helpers written once, for models (attributes) and migrations (columns). Each call answers a
// fresh object: Sequelize writes into the definitions it is given, so two attributes never share one.

// ---- model attributes -----------------------------------------------------------------------------

/** A ULID primary key. */
export const id = () => ({ type: DataTypes.STRING(26), primaryKey: true });
/** A ULID naming another row (required unless `allowNull`). */
export const reference = (allowNull = false) => ({ type: DataTypes.STRING(26), allowNull });
/** `createdAt` and `updatedAt`, kept by Sequelize. */
export const timestamps = () => ({ createdAt: DataTypes.DATE, updatedAt: DataTypes.DATE });
/** A text of at most `length` characters that may be absent. */
export const optionalText = (length: number) => ({ type: DataTypes.STRING(length), allowNull: true });

// ---- migration columns ----------------------------------------------------------------------------

/** A ULID primary key column. */
export const idColumn = () => ({ type: DataTypes.STRING(26), primaryKey: true });
/** `created_at` and `updated_at`, both required. */
export const timestampColumns = () => ({
  created_at: { type: DataTypes.DATE, allowNull: false },
  updated_at: { type: DataTypes.DATE, allowNull: false },
});
/** A ULID column referencing `table`'s id; an optional one is set to NULL when its row goes. */
export const foreignKey = (
  table: { tableName: string; schema: string },
  options: { onDelete?: 'CASCADE' | 'RESTRICT'; allowNull?: boolean } = {},
) => ({
  type: DataTypes.STRING(26),
  allowNull: options.allowNull ?? false,
  references: { model: table, key: 'id' },
  onDelete: options.allowNull ? 'SET NULL' : (options.onDelete ?? 'CASCADE'),
});
