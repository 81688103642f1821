import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveS3Credentials } from './credentials.js';
import { S3_CREDENTIALS_FILE } from '../shared/data-dir.js';

describe('resolveS3Credentials', () => {
  it('generates a key pair once into the data folder (mode 0600) and reads it back later', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-s3cred-'));
    try {
      const first = resolveS3Credentials({ dataDir, accessKeyId: undefined, secretAccessKey: undefined });
      expect(first.accessKeyId).toMatch(/^[0-9a-f]{32}$/);
      expect(first.secretAccessKey).toMatch(/^[0-9a-f]{64}$/);
      expect(first.generatedFile).toBe(path.join(dataDir, S3_CREDENTIALS_FILE));
      expect(fs.statSync(first.generatedFile!).mode & 0o777).toBe(0o600);
      const again = resolveS3Credentials({ dataDir, accessKeyId: undefined, secretAccessKey: undefined });
      expect(again).toEqual({ accessKeyId: first.accessKeyId, secretAccessKey: first.secretAccessKey });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('uses configured keys as given, and refuses half a pair', () => {
    expect(resolveS3Credentials({ dataDir: '/nonexistent', accessKeyId: 'id', secretAccessKey: 'secret' })).toEqual({ accessKeyId: 'id', secretAccessKey: 'secret' });
    expect(() => resolveS3Credentials({ dataDir: '/nonexistent', accessKeyId: 'id', secretAccessKey: undefined })).toThrow(/together/);
  });
});
