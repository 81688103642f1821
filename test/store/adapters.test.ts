/** Runs the port contract suites against the embedded adapters (SQLite metadata, file blobs). */
import fs from 'node:fs';
import path from 'node:path';
import { SqliteMetadataStore } from '../../src/store/adapters/sqlite-metadata.js';
import { FileBlobStore } from '../../src/store/adapters/file-blobs.js';
import { metadataStoreContract } from './contract/metadata-store.js';
import { blobStoreContract } from './contract/blob-store.js';
import { tempDir } from './helpers.js';

metadataStoreContract('sqlite', {
  async open() {
    const dir = tempDir();
    return {
      store: SqliteMetadataStore.inDataDir(dir),
      shared: async () => SqliteMetadataStore.inDataDir(dir),
      cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  },
});

blobStoreContract('files', {
  async open() {
    const dir = tempDir();
    return { store: new FileBlobStore(path.join(dir, 'blobs')), cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  },
});
