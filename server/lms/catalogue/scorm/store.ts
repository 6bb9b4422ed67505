import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { QueryTypes, type Sequelize } from 'sequelize';
import { unprocessable } from '../../../platform/http/errors.ts';
import { isUlid } from '../../../platform/ids.ts';
import type { StorageClient } from '../../orchestrator.ts';
import { extractPackage, type PackageLimits } from './package.ts';

export interface StoredPackage {
  packageAssetId: string;
  scormVersion: '1.2' | '2004';
  scoHref: string;
  title: string | null;
}

export type PackageStore = ReturnType<typeof createPackageStore>;

/**
 * SCORM packages as the LMS keeps them: the Orchestrator asset (`packageAssetId`) is fetched,
 * checked and extracted once into `<root>/<packageAssetId>/`, and recorded with its launch file.
 * Attaching the same asset again reuses the extraction; a folder lost from disk is extracted again
 * on the next launch.
 */
export function createPackageStore(deps: {
  sequelize: Sequelize;
  storage: StorageClient;
  root: string;
  limits: PackageLimits;
}) {
  const { sequelize, storage, root, limits } = deps;

  const folderOf = (packageAssetId: string) => path.join(root, packageAssetId);

  async function recorded(packageAssetId: string): Promise<StoredPackage | undefined> {
    const [row] = await sequelize.query<{
      package_asset_id: string;
      scorm_version: '1.2' | '2004';
      sco_href: string;
      title: string | null;
    }>(
      'SELECT package_asset_id, scorm_version, sco_href, title FROM lms.lms_scorm_packages WHERE package_asset_id = $1',
      { type: QueryTypes.SELECT, bind: [packageAssetId] },
    );
    return (
      row && {
        packageAssetId: row.package_asset_id,
        scormVersion: row.scorm_version,
        scoHref: row.sco_href,
        title: row.title,
      }
    );
  }

  const extracted = (packageAssetId: string) =>
    fs.access(path.join(folderOf(packageAssetId), 'imsmanifest.xml')).then(
      () => true,
      () => false,
    );

  /**
   * Fetches, checks and extracts the asset (422 `lms.scorm.invalid_package` when it is no usable
   * package). One extraction per asset at a time (an advisory lock): a second attach or launch of the
   * same asset waits for the first and then finds its folder.
   */
  function extract(packageAssetId: string): Promise<StoredPackage> {
    return sequelize.transaction(async (transaction) => {
      await sequelize.query(`SELECT pg_advisory_xact_lock(hashtext('lms.scorm:' || $1))`, {
        bind: [packageAssetId],
        transaction,
      });
      const known = await recorded(packageAssetId);
      if (known && (await extracted(packageAssetId))) return known;
      await fs.mkdir(root, { recursive: true });
      const work = await fs.mkdtemp(path.join(os.tmpdir(), 'lms-scorm-'));
      try {
        const zipFile = path.join(work, 'package.zip');
        await storage.download(packageAssetId, zipFile, limits.maxUncompressedBytes, 'lms.scorm.invalid_package');
        const destination = folderOf(packageAssetId);
        // A folder without a record is what a crash mid-way leaves: it is replaced.
        await fs.rm(destination, { recursive: true, force: true });
        const launch = await extractPackage(zipFile, destination, limits);
        await sequelize.query(
          `INSERT INTO lms.lms_scorm_packages (package_asset_id, scorm_version, sco_href, title, file_count, uncompressed_bytes, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, now(), now())
           ON CONFLICT (package_asset_id) DO UPDATE SET scorm_version = EXCLUDED.scorm_version, sco_href = EXCLUDED.sco_href, title = EXCLUDED.title,
             file_count = EXCLUDED.file_count, uncompressed_bytes = EXCLUDED.uncompressed_bytes, updated_at = now()`,
          {
            bind: [
              packageAssetId,
              launch.scormVersion,
              launch.scoHref,
              launch.title?.slice(0, 500) ?? null,
              launch.fileCount,
              launch.uncompressedBytes,
            ],
            transaction,
          },
        );
        return { packageAssetId, scormVersion: launch.scormVersion, scoHref: launch.scoHref, title: launch.title };
      } finally {
        await fs.rm(work, { recursive: true, force: true });
      }
    });
  }

  return {
    folderOf,

    /**
     * The package of an item being authored: checked and extracted now, so a broken package is refused
     * when it is attached, not when a learner launches it. `ownerBearer` (the author's token) proves
     * the asset is the author's own upload.
     */
    async attach(packageAssetId: string, ownerBearer?: string): Promise<StoredPackage> {
      if (!isUlid(packageAssetId))
        throw unprocessable('lms.scorm.invalid_package', 'packageAssetId is not an asset id.', [
          { field: 'packageAssetId', issue: 'is not an asset id' },
        ]);
      if (ownerBearer && !(await storage.ownsAsset(ownerBearer, packageAssetId))) {
        throw unprocessable('lms.scorm.invalid_package', 'The package is not one of your confirmed uploads.', [
          { field: 'packageAssetId', issue: 'is not a confirmed asset of yours' },
        ]);
      }
      const known = await recorded(packageAssetId);
      if (known && (await extracted(packageAssetId))) return known;
      return extract(packageAssetId);
    },

    /** The package ready to be played: extracted again if its folder is gone. */
    async ready(packageAssetId: string): Promise<StoredPackage> {
      const known = await recorded(packageAssetId);
      if (known && (await extracted(packageAssetId))) return known;
      return extract(packageAssetId);
    },
  };
}
