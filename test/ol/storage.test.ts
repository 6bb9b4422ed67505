import { storageSuite } from '../helpers/storage-suite.ts';

// The storage rules on the default backend: the filesystem under the data directory.
storageSuite(async () => ({ storageBackend: 'filesystem' }));
