import { Op, type ModelStatic, type Sequelize } from 'sequelize';
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  exportJWK,
  exportPKCS8,
  generateKeyPair,
  importPKCS8,
  type CryptoKey,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
} from 'jose';
import type { PlatformConfig } from '../../platform/config.ts';
import { defineSigningKey, type SigningKeyRow } from './models.ts';
import { keyReloadSeconds } from './timing.ts';

export const signingAlgorithm = 'RS256';

/** An unknown `kid` triggers an early reread, but no more often than this (garbage tokens must not hammer the database). */
const minReloadMs = 5_000;

/** The keys one process signs and verifies with, as read from the database. */
export interface KeyRing {
  signing: { kid: string; privateKey: CryptoKey };
  /** Public keys of the active key and of retired keys whose tokens may still be live. */
  jwks: JSONWebKeySet;
  keyFor: JWTVerifyGetKey;
  /** The `kid`s of `jwks`. */
  kids: ReadonlySet<string>;
}

export interface SigningKeys {
  current(): Promise<KeyRing>;
  /** Rereads the keys now (a token names a `kid` this process has not seen yet). */
  reload(): Promise<KeyRing>;
}

export interface SigningKeySummary {
  kid: string;
  createdAt: string;
  active: boolean;
  retiredAt: string | null;
  /** Whether the JWKS still lists it. */
  published: boolean;
}

/** The key ring of a running server: read lazily, cached for `keyReloadSeconds`. */
export function createSigningKeys(sequelize: Sequelize, config: PlatformConfig): SigningKeys {
  const SigningKey = defineSigningKey(sequelize);
  let ring: Promise<KeyRing> | undefined;
  let loadedAt = 0;
  const load = () => {
    loadedAt = Date.now();
    const loading = readKeyRing(SigningKey, config);
    ring = loading;
    loading.catch(() => {
      if (ring === loading) ring = undefined;
    });
    return loading;
  };
  return {
    current: () => (ring && Date.now() - loadedAt < keyReloadSeconds * 1000 ? ring : load()),
    reload: () => (ring && Date.now() - loadedAt < minReloadMs ? ring : load()),
  };
}

/** A retired key stays published until every token it may have signed has expired. */
function publishedAfter(config: PlatformConfig): Date {
  return new Date(Date.now() - (config.accessTokenTtlSeconds + 2 * keyReloadSeconds) * 1000);
}

async function readKeyRing(SigningKey: ModelStatic<SigningKeyRow>, config: PlatformConfig): Promise<KeyRing> {
  const rows = await SigningKey.findAll({
    where: { [Op.or]: [{ active: true }, { retiredAt: { [Op.gt]: publishedAfter(config) } }] },
    order: [['createdAt', 'DESC']],
  });
  const active = rows.find((row) => row.active);
  if (!active)
    throw new Error('no active signing key in ol.signing_keys (the Orchestrator creates one when it starts)');
  const jwks: JSONWebKeySet = { keys: rows.map((row) => row.publicJwk) };
  return {
    signing: { kid: active.kid, privateKey: await importPKCS8(active.privateKeyPem, signingAlgorithm) },
    jwks,
    keyFor: createLocalJWKSet(jwks),
    kids: new Set(rows.map((row) => row.kid)),
  };
}

async function generateSigningKey(): Promise<{
  kid: string;
  privateKeyPem: string;
  publicJwk: SigningKeyRow['publicJwk'];
}> {
  const { publicKey, privateKey } = await generateKeyPair(signingAlgorithm, { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  return {
    kid,
    privateKeyPem: await exportPKCS8(privateKey),
    publicJwk: { ...jwk, kid, alg: signingAlgorithm, use: 'sig' },
  };
}

/** Creates the first signing key when there is no active one. Safe when several processes start at once. */
export async function ensureSigningKey(sequelize: Sequelize): Promise<void> {
  const SigningKey = defineSigningKey(sequelize);
  if ((await SigningKey.count({ where: { active: true } })) > 0) return;
  const key = await generateSigningKey();
  // The partial unique index on `active` turns a concurrent first start into a no-op here.
  await SigningKey.bulkCreate([{ ...key, active: true, retiredAt: null, createdAt: new Date() }], {
    ignoreDuplicates: true,
  });
}

/** Makes a new key the signing key; the previous one is retired but stays published (see `publishedAfter`). */
export async function rotateSigningKey(sequelize: Sequelize): Promise<{ kid: string; retired: string[] }> {
  const SigningKey = defineSigningKey(sequelize);
  const key = await generateSigningKey();
  return sequelize.transaction(async (transaction) => {
    const previous = await SigningKey.findAll({ where: { active: true }, lock: transaction.LOCK.UPDATE, transaction });
    const now = new Date();
    await SigningKey.update({ active: false, retiredAt: now }, { where: { active: true }, transaction });
    await SigningKey.create({ ...key, active: true, retiredAt: null, createdAt: now }, { transaction });
    return { kid: key.kid, retired: previous.map((row) => row.kid) };
  });
}

/** Every key, newest first, with whether a server with this configuration publishes it. */
export async function listSigningKeys(sequelize: Sequelize, config: PlatformConfig): Promise<SigningKeySummary[]> {
  const SigningKey = defineSigningKey(sequelize);
  const cutoff = publishedAfter(config);
  const rows = await SigningKey.findAll({ order: [['createdAt', 'DESC']] });
  return rows.map((row) => ({
    kid: row.kid,
    createdAt: row.createdAt.toISOString(),
    active: row.active,
    retiredAt: row.retiredAt?.toISOString() ?? null,
    published: row.active || (row.retiredAt !== null && row.retiredAt > cutoff),
  }));
}
