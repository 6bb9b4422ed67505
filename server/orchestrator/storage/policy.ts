import { defineLifecycle } from '../../platform/lifecycle.ts';

/**
 * What may be stored for each purpose: the content types (sniffed from the bytes, never taken from
 * the client), the default size limit (STORAGE_MAX_BYTES overrides it), and whether the asset is
 * sensitive (its URLs live minutes, not days).
 */
const MB = 1024 * 1024;
const images = ['image/jpeg', 'image/png', 'image/webp'];
const documents = ['application/pdf', ...images];

export interface PurposePolicy {
  types: string[];
  maxBytes: number;
  sensitive: boolean;
}

export const purposePolicies = {
  passport: { types: images, maxBytes: 5 * MB, sensitive: true },
  signature: { types: images, maxBytes: 2 * MB, sensitive: true },
  evidence: {
    types: [
      ...documents,
      'video/mp4',
      'video/quicktime',
      'audio/mpeg',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ],
    maxBytes: 50 * MB,
    sensitive: true,
  },
  logo: { types: images, maxBytes: 2 * MB, sensitive: false },
  avatar: { types: images, maxBytes: 2 * MB, sensitive: false },
  certificate: { types: documents, maxBytes: 10 * MB, sensitive: false },
  receipt: { types: documents, maxBytes: 10 * MB, sensitive: false },
  scorm_package: { types: ['application/zip'], maxBytes: 200 * MB, sensitive: false },
  attachment: { types: documents, maxBytes: 10 * MB, sensitive: false },
  other: { types: documents, maxBytes: 10 * MB, sensitive: false },
} satisfies Record<string, PurposePolicy>;

export type Purpose = keyof typeof purposePolicies;
export const purposes = Object.keys(purposePolicies) as Purpose[];
export const defaultPurpose: Purpose = 'other';

export const isPurpose = (value: unknown): value is Purpose =>
  typeof value === 'string' && Object.hasOwn(purposePolicies, value);

/** The policy of a purpose with the configured size limit applied. */
export function policyOf(purpose: Purpose, overrides: Record<string, number>): PurposePolicy {
  const policy = purposePolicies[purpose];
  return { ...policy, maxBytes: overrides[purpose] ?? policy.maxBytes };
}

/** The largest upload any purpose accepts (a multipart file may arrive before its purpose field). */
export const largestLimit = (overrides: Record<string, number>) =>
  Math.max(...purposes.map((p) => policyOf(p, overrides).maxBytes));

/** How a browser should treat a served file: shown in place (images, PDF) or saved. */
export const disposition = (mimeType: string) =>
  mimeType.startsWith('image/') || mimeType === 'application/pdf' ? 'inline' : 'attachment';

/**
 * The life of an asset, as data: stored `ready` at once (a multipart upload), or `pending` (an upload
 * URL was issued) -> `uploaded` (bytes received, again until confirmed) -> `ready` (confirmed; confirming
 * again changes nothing). The owner moves it; a service stores files for the users it names.
 */
export const assetLifecycle = defineLifecycle({
  subject: 'asset',
  statuses: ['pending', 'uploaded', 'ready'],
  movers: ['owner', 'service'],
  moves: {
    store: { from: [null], to: 'ready', by: ['owner', 'service'] },
    offer_upload: { from: [null], to: 'pending', by: ['owner'] },
    receive: { from: ['pending', 'uploaded'], to: 'uploaded', by: ['owner'] },
    confirm: { from: ['uploaded', 'ready'], to: 'ready', by: ['owner'] },
  },
});
export type AssetStatus = (typeof assetLifecycle.statuses)[number];
