import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { storageSuite } from '../helpers/storage-suite.ts';

// The same storage rules on the S3-compatible backend, against s3rver (a local S3 server from npm).
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'capctl-s3-'));
let server: S3rver | undefined;

storageSuite(
  async () => {
    server ??= new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory,
      configureBuckets: [{ name: 'cap-assets', configs: [] }],
    });
    const { port } = await server.run();
    return {
      storageBackend: 's3',
      s3Endpoint: `http://127.0.0.1:${port}`,
      s3Bucket: 'cap-assets',
      s3AccessKeyId: 'S3RVER',
      s3SecretAccessKey: 'S3RVER',
    };
  },
  async () => {
    await server?.close();
    fs.rmSync(directory, { recursive: true, force: true });
  },
);
