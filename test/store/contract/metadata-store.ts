/**
 * Contract suite every MetadataStore adapter must pass. Call `metadataStoreContract(name, factory)` from a
 * test file; `factory` returns a fresh, empty store (and may be called twice for the same folder to get two
 * connections, via `second`).
 */
import { describe, expect, it } from 'vitest';
import type { MetadataStore, ObjectRecord, PartRecord, UploadRecord } from '../../../src/store/ports.js';

/** Builds a fresh store; `shared` returns another connection to the same data when the adapter can. */
export interface MetadataFactory {
  open(): Promise<{ store: MetadataStore; shared?: () => Promise<MetadataStore>; cleanup?: () => Promise<void> }>;
}

const rec = (key: string, over: Partial<ObjectRecord> = {}): ObjectRecord => ({
  key,
  version: `v-${key}-${Math.random()}`,
  size: 1,
  etag: 'e',
  uploaded: 1000,
  checksums: { md5: 'e' },
  httpMetadata: { contentType: 't', cacheExpiry: 5 },
  customMetadata: { a: 'b' },
  storageClass: 'Standard',
  ssec: null,
  body: { kind: 'inline', data: new Uint8Array([1]) },
  ...over,
});

const upload = (id: string, key: string, created = 0): UploadRecord => ({
  uploadId: id,
  key,
  created,
  state: 'active',
  httpMetadata: {},
  customMetadata: { m: '1' },
  storageClass: 'Standard',
  ssecKeyMd5: null,
});

const part = (n: number, blobId: string): PartRecord => ({ partNumber: n, size: 10, etag: `e${n}`, blobId, iv: null });
const always = () => true;

/** Registers the suite. */
export function metadataStoreContract(name: string, factory: MetadataFactory): void {
  describe(`MetadataStore contract: ${name}`, () => {
    const withStore = (fn: (s: MetadataStore, shared?: () => Promise<MetadataStore>) => Promise<void>) => async () => {
      const { store, shared, cleanup } = await factory.open();
      try {
        await fn(store, shared);
      } finally {
        await store.close();
        await cleanup?.();
      }
    };

    it('round-trips records of every body kind, per bucket', withStore(async (s) => {
      const a = rec('a');
      const blob = rec('b', { body: { kind: 'blob', blobId: 'x'.repeat(80) }, ssec: { keyMd5: 'k', iv: 'i' } });
      const parts = rec('c', { body: { kind: 'parts', uploadId: 'u' }, checksums: {} });
      for (const r of [a, blob, parts]) expect((await s.putObject('one', r, always)).ok).toBe(true);
      expect(await s.getObject('one', 'a')).toEqual({ ...a, body: { kind: 'inline', data: expect.anything() } });
      expect(Buffer.from((((await s.getObject('one', 'a'))!.body) as { data: Uint8Array }).data)).toEqual(Buffer.from([1]));
      expect(await s.getObject('one', 'b')).toEqual(blob);
      expect(await s.getObject('one', 'c')).toEqual({ ...parts, body: { kind: 'parts', uploadId: 'u', parts: [] } });
      expect(await s.getObject('two', 'a')).toBeNull();
    }));

    it('conditional swap sees the current row and discards the replaced blob', withStore(async (s) => {
      const first = rec('k', { body: { kind: 'blob', blobId: 'b1' } });
      await s.putObject('b', first, always);
      const refused = await s.putObject('b', rec('k'), (cur) => cur === null);
      expect(refused).toEqual({ ok: false, current: first });
      const replaced = await s.putObject('b', rec('k'), (cur) => cur?.version === first.version);
      expect(replaced).toEqual({ ok: true, replaced: first });
      expect(await s.takeGarbage(Date.now() + 1, 10)).toEqual(['b1']);
      expect(await s.referencedBlobs(['b1', 'zz'])).toEqual(new Set(['b1']));
      await s.dropGarbage(['b1']);
      expect(await s.takeGarbage(Date.now() + 1, 10)).toEqual([]);
      expect(await s.referencedBlobs(['b1'])).toEqual(new Set());
    }));

    it('concurrent conditional creates through two connections: exactly one wins', withStore(async (s, shared) => {
      const other = shared ? await shared() : s;
      try {
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => (i % 2 ? other : s).putObject('b', rec('race'), (cur) => cur === null)),
        );
        expect(results.filter((r) => r.ok).length).toBe(1);
      } finally {
        if (other !== s) await other.close();
      }
    }));

    it('scans in UTF-8 byte order with prefix, after, from and limit', withStore(async (s) => {
      for (const k of ['b', 'a/2', 'a/1', '\uFFFF', '🙂', 'B', 'a']) await s.putObject('b', rec(k), always);
      const keys = async (o: Parameters<MetadataStore['scanObjects']>[1]) => (await s.scanObjects('b', o)).map((r) => r.key);
      expect(await keys({ prefix: '', limit: 100 })).toEqual(['B', 'a', 'a/1', 'a/2', 'b', '\uFFFF', '🙂']);
      expect(await keys({ prefix: 'a/', limit: 100 })).toEqual(['a/1', 'a/2']);
      expect(await keys({ prefix: '', after: 'a', limit: 2 })).toEqual(['a/1', 'a/2']);
      expect(await keys({ prefix: '', from: 'a/2', limit: 2 })).toEqual(['a/2', 'b']);
      expect(await s.lastKeyWithPrefix('b', 'a')).toBe('a/2');
      expect(await s.lastKeyWithPrefix('b', 'zz')).toBeNull();
    }));

    it('deletes keys and moves part blobs of multipart objects to garbage', withStore(async (s) => {
      await s.createUpload('b', upload('u1', 'm'));
      await s.putPart('b', 'u1', 'm', part(1, 'p1'), 0, 1000);
      await s.completeUpload('b', 'u1', 'm', 0, 1000, (u, parts) => {
        expect(u!.customMetadata).toEqual({ m: '1' });
        expect(parts.map((p) => p.blobId)).toEqual(['p1']);
        return { record: rec('m', { body: { kind: 'parts', uploadId: 'u1' } }), used: [1] };
      });
      expect(await s.listParts('b', 'u1')).toEqual([part(1, 'p1')]);
      expect(await s.getObject('b', 'm')).toMatchObject({ body: { kind: 'parts', uploadId: 'u1', parts: [part(1, 'p1')] } });
      expect((await s.getUpload('b', 'u1'))!.state).toBe('completed');
      await s.deleteObjects('b', ['m', 'missing']);
      expect(await s.getObject('b', 'm')).toBeNull();
      expect(await s.takeGarbage(Date.now() + 1, 10)).toEqual(['p1']);
    }));

    it('conditional deletes check each row under the lock and report the refused ones', withStore(async (s) => {
      await s.putObject('b', rec('x', { etag: 'ex', body: { kind: 'blob', blobId: 'bx' } }), always);
      await s.putObject('b', rec('y', { etag: 'ey' }), always);
      const seen: Array<[string, string | null]> = [];
      const refused = await s.deleteObjects('b', ['x', 'y', 'z'], (key, current) => {
        seen.push([key, current?.etag ?? null]);
        return current?.etag === 'ex';
      });
      expect(seen.sort()).toEqual([['x', 'ex'], ['y', 'ey'], ['z', null]]);
      expect(refused.map((r) => [r.key, r.current?.etag ?? null]).sort()).toEqual([['y', 'ey'], ['z', null]]);
      expect(await s.getObject('b', 'x')).toBeNull();
      expect((await s.getObject('b', 'y'))!.etag).toBe('ey');
      expect(await s.takeGarbage(Date.now() + 1, 10)).toEqual(['bx']);
    }));

    it('a completion sees the object it would replace', withStore(async (s) => {
      await s.putObject('b', rec('k', { etag: 'before' }), always);
      await s.createUpload('b', upload('u', 'k'));
      await s.putPart('b', 'u', 'k', part(1, 'p'), 0, 1000);
      await expect(s.completeUpload('b', 'u', 'k', 0, 1000, (_u, _parts, current) => {
        expect(current!.etag).toBe('before');
        throw new Error('condition failed');
      })).rejects.toThrow('condition failed');
      expect((await s.getObject('b', 'k'))!.etag).toBe('before');
      expect((await s.getUpload('b', 'u'))!.state).toBe('active');
    }));

    it('uploads: key must match, replaced and unused parts become garbage, failures roll back', withStore(async (s) => {
      await s.createUpload('b', upload('u', 'k'));
      expect(await s.putPart('b', 'u', 'other', part(1, 'x'), 0, 1000)).toBe('no-upload');
      expect(await s.putPart('b', 'nope', 'k', part(1, 'x'), 0, 1000)).toBe('no-upload');
      expect(await s.putPart('b', 'u', 'k', part(1, 'old'), 0, 1000)).toBe('ok');
      expect(await s.putPart('b', 'u', 'k', part(1, 'new'), 0, 1000)).toBe('ok');
      expect(await s.putPart('b', 'u', 'k', part(2, 'unused'), 0, 1000)).toBe('ok');
      await expect(
        s.completeUpload('b', 'u', 'k', 0, 1000, () => {
          throw new Error('invalid');
        }),
      ).rejects.toThrow('invalid');
      expect((await s.getUpload('b', 'u'))!.state).toBe('active');
      await s.completeUpload('b', 'u', 'k', 0, 1000, () => ({ record: rec('k', { body: { kind: 'parts', uploadId: 'u' } }), used: [1] }));
      expect((await s.listParts('b', 'u')).map((p) => p.blobId)).toEqual(['new']);
      expect((await s.takeGarbage(Date.now() + 1, 10)).sort()).toEqual(['old', 'unused']);
    }));

    it('multipart checksums (schema step 4): the upload keeps its algorithm and type, a part its checksums, a multipart object its parts\' checksums', withStore(async (s) => {
      await s.createUpload('b', { ...upload('u', 'k'), checksumAlgorithm: 'crc32', checksumType: 'COMPOSITE' });
      await s.createUpload('b', upload('plain', 'k'));
      expect(await s.getUpload('b', 'u')).toMatchObject({ checksumAlgorithm: 'crc32', checksumType: 'COMPOSITE' });
      expect((await s.getUpload('b', 'plain'))!.checksumAlgorithm ?? null).toBeNull();
      await s.putPart('b', 'u', 'k', { ...part(1, 'p1'), checksums: { crc32: '0a0b0c0d' } }, 0, 1000);
      await s.putPart('b', 'u', 'k', part(2, 'p2'), 0, 1000);
      await s.putPart('b', 'u', 'k', { ...part(2, 'p2b'), checksums: { crc32: '01020304' } }, 0, 1000);
      expect((await s.listParts('b', 'u')).map((p) => p.checksums)).toEqual([{ crc32: '0a0b0c0d' }, { crc32: '01020304' }]);
      await s.completeUpload('b', 'u', 'k', 0, 1000, (_u, parts) => {
        expect(parts.map((p) => p.checksums)).toEqual([{ crc32: '0a0b0c0d' }, { crc32: '01020304' }]);
        return { record: rec('k', { checksums: { crc32: 'ffffffff-2' }, body: { kind: 'parts', uploadId: 'u' } }), used: [1, 2] };
      });
      const got = (await s.getObject('b', 'k'))!;
      expect(got.checksums).toEqual({ crc32: 'ffffffff-2' });
      expect(got.body.kind === 'parts' && got.body.parts!.map((p) => p.checksums)).toEqual([{ crc32: '0a0b0c0d' }, { crc32: '01020304' }]);
    }));

    it('abort and expiry', withStore(async (s) => {
      await s.createUpload('b', upload('u', 'k', 0));
      await s.putPart('b', 'u', 'k', part(1, 'p'), 0, 1000);
      expect(await s.abortUpload('b', 'u', 'wrong')).toBeNull();
      expect((await s.abortUpload('b', 'u', 'k'))!.state).toBe('active');
      expect((await s.abortUpload('b', 'u', 'k'))!.state).toBe('aborted');
      expect(await s.listParts('b', 'u')).toEqual([]);
      await s.createUpload('b', upload('old', 'k', 0));
      await s.createUpload('b', upload('young', 'k', 500));
      expect(await s.putPart('b', 'old', 'k', part(1, 'q'), 1001, 1000)).toBe('no-upload');
      expect(await s.expireUploads(100)).toBe(0);
      expect(await s.expireUploads(600)).toBe(1);
      expect((await s.getUpload('b', 'young'))!.state).toBe('aborted');
    }));

    it('bucket registry: create, exists, get, list in UTF-8 byte order', withStore(async (s) => {
      expect(await s.listBuckets()).toEqual([]);
      expect(await s.getBucket('b')).toBeNull();
      for (const name of ['b', 'a-2', '🙂', 'B', '\uFFFF', 'a']) expect(await s.createBucket(name, 100)).toBe(true);
      expect(await s.createBucket('b', 200)).toBe(false);
      expect(await s.getBucket('b')).toEqual({ name: 'b', created: 100 });
      expect((await s.listBuckets()).map((b) => b.name)).toEqual(['B', 'a', 'a-2', 'b', '\uFFFF', '🙂']);
    }));

    it('putObject, completeUpload and createUpload register their bucket; a refused put does not', withStore(async (s) => {
      expect((await s.putObject('refused', rec('k'), () => false)).ok).toBe(false);
      expect(await s.getBucket('refused')).toBeNull();
      await s.putObject('objects', rec('k', { uploaded: 5000 }), always);
      await s.putObject('objects', rec('k2', { uploaded: 6000 }), always);
      expect(await s.getBucket('objects')).toEqual({ name: 'objects', created: 5000 });
      await s.createUpload('uploads', upload('u', 'k', 7000));
      expect(await s.getBucket('uploads')).toEqual({ name: 'uploads', created: 7000 });
      await s.createBucket('explicit', 1);
      await s.putObject('explicit', rec('k', { uploaded: 9000 }), always);
      expect(await s.getBucket('explicit')).toEqual({ name: 'explicit', created: 1 });
      expect((await s.listBuckets()).map((b) => b.name)).toEqual(['explicit', 'objects', 'uploads']);
    }));

    it('deleteBucket: missing, empty, holding an object, holding an active upload', withStore(async (s) => {
      expect(await s.deleteBucket('nope')).toBe('missing');
      await s.createBucket('empty', 1);
      expect(await s.deleteBucket('empty')).toBe('deleted');
      expect(await s.getBucket('empty')).toBeNull();
      expect(await s.deleteBucket('empty')).toBe('missing');

      await s.putObject('obj', rec('k'), always);
      expect(await s.deleteBucket('obj')).toBe('not-empty');
      expect(await s.getBucket('obj')).not.toBeNull();
      await s.deleteObjects('obj', ['k']);
      expect(await s.deleteBucket('obj')).toBe('deleted');

      await s.createUpload('up', upload('u1', 'k'));
      await s.putPart('up', 'u1', 'k', part(1, 'p1'), 0, 1000);
      expect(await s.deleteBucket('up')).toBe('not-empty');
      expect((await s.getUpload('up', 'u1'))!.state).toBe('active');
      await s.abortUpload('up', 'u1', 'k');
      expect(await s.deleteBucket('up')).toBe('deleted');
      expect(await s.getUpload('up', 'u1')).toBeNull();
      expect(await s.listBuckets()).toEqual([]);
    }));

    it('deleteBucket counts a completed upload only through its object', withStore(async (s) => {
      await s.createUpload('b', upload('u', 'k'));
      await s.putPart('b', 'u', 'k', part(1, 'p'), 0, 1000);
      await s.completeUpload('b', 'u', 'k', 0, 1000, () => ({ record: rec('k', { body: { kind: 'parts', uploadId: 'u' } }), used: [1] }));
      expect(await s.deleteBucket('b')).toBe('not-empty');
      await s.deleteObjects('b', ['k']);
      expect(await s.deleteBucket('b')).toBe('deleted');
      expect(await s.getUpload('b', 'u')).toBeNull();
      expect(await s.referencedBlobs(['p'])).toEqual(new Set(['p']));
      expect(await s.takeGarbage(Date.now() + 1, 10)).toEqual(['p']);
    }));

    it('bucket CORS: kept with the bucket, replaced, removed, and gone with the bucket', withStore(async (s, shared) => {
      expect(await s.setBucketCors('nope', '[1]')).toBe(false);
      expect(await s.getBucketCors('nope')).toBeNull();
      await s.createBucket('c', 1);
      expect(await s.getBucketCors('c')).toBeNull();
      expect(await s.setBucketCors('c', '[{"a":"ü"}]')).toBe(true);
      expect(await s.getBucketCors('c')).toBe('[{"a":"ü"}]');
      expect(await s.getBucket('c')).toEqual({ name: 'c', created: 1 });
      // A later write registering the bucket again leaves its configuration alone; other connections see it.
      expect((await s.putObject('c', rec('k', { uploaded: 9 }), always)).ok).toBe(true);
      expect(await s.createBucket('c', 5)).toBe(false);
      if (shared) {
        const other = await shared();
        try {
          expect(await other.getBucketCors('c')).toBe('[{"a":"ü"}]');
        } finally {
          await other.close();
        }
      }
      expect(await s.setBucketCors('c', null)).toBe(true);
      expect(await s.getBucketCors('c')).toBeNull();
      expect(await s.setBucketCors('c', 'again')).toBe(true);
      await s.deleteObjects('c', ['k']);
      expect(await s.deleteBucket('c')).toBe('deleted');
      await s.createBucket('c', 2);
      expect(await s.getBucketCors('c')).toBeNull();
    }));

    it('a bucket deleted and written again is registered again', withStore(async (s) => {
      await s.createBucket('b', 1);
      expect(await s.deleteBucket('b')).toBe('deleted');
      await s.putObject('b', rec('k', { uploaded: 50 }), always);
      expect(await s.getBucket('b')).toEqual({ name: 'b', created: 50 });
    }));

    it('lifecycle steps act only on the version they name; the blob of a deleted one becomes garbage', withStore(async (s) => {
      const first = rec('k', { body: { kind: 'blob', blobId: 'lc-blob-1' } });
      await s.putObject('b', first, always);
      const second = rec('k', { body: { kind: 'blob', blobId: 'lc-blob-2' } });
      await s.putObject('b', second, always);
      expect(await s.deleteObjectVersion('b', 'k', first.version)).toBe(false);
      expect(await s.setObjectStorageClass('b', 'k', first.version, 'InfrequentAccess')).toBe(false);
      expect((await s.getObject('b', 'k'))!.storageClass).toBe('Standard');
      expect(await s.setObjectStorageClass('b', 'k', second.version, 'InfrequentAccess')).toBe(true);
      expect((await s.getObject('b', 'k'))!.storageClass).toBe('InfrequentAccess');
      expect(await s.deleteObjectVersion('b', 'k', second.version)).toBe(true);
      expect(await s.deleteObjectVersion('b', 'k', second.version)).toBe(false);
      expect(await s.getObject('b', 'k')).toBeNull();
      expect(await s.takeGarbage(Date.now() + 1000, 10)).toEqual(expect.arrayContaining(['lc-blob-1', 'lc-blob-2']));
    }));

    it('bucket settings, lifecycle text and leases', withStore(async (s) => {
      expect(await s.createBucket('acct/b', 7, { storageClass: 'InfrequentAccess', location: 'weur', lifecycle: '[1]' })).toBe(true);
      await s.createBucket('acct/c', 8);
      await s.createBucket('other', 9);
      expect(await s.getBucket('acct/b')).toEqual({ name: 'acct/b', created: 7, storageClass: 'InfrequentAccess', location: 'weur' });
      expect((await s.listBuckets('acct/')).map((b) => b.name)).toEqual(['acct/b', 'acct/c']);
      expect(await s.getBucketLifecycle('acct/b')).toBe('[1]');
      expect(await s.bucketsWithLifecycle()).toEqual(['acct/b']);
      expect(await s.setBucketLifecycle('acct/c', '[]')).toBe(true);
      expect(await s.setBucketLifecycle('missing', '[]')).toBe(false);
      expect(await s.setBucketStorageClass('acct/c', 'InfrequentAccess')).toBe(true);
      expect((await s.getBucket('acct/c'))!.storageClass).toBe('InfrequentAccess');
      expect(await s.takeLease('job', 'one', 1000, 100)).toBe(true);
      expect(await s.takeLease('job', 'two', 1050, 100)).toBe(false);
      expect(await s.takeLease('job', 'one', 1050, 100)).toBe(true);
      expect(await s.takeLease('job', 'two', 1151, 100)).toBe(true);
    }));

    it('an unexpired gc-hold/ lease holds the garbage list; other leases do not (stratus backup, docs/operations.md)', withStore(async (s) => {
      await s.putObject('b', rec('k', { body: { kind: 'blob', blobId: 'held' } }), always);
      await s.putObject('b', rec('k'), always);
      expect(await s.takeLease('lifecycle:b', 'node', Date.now(), 60_000)).toBe(true);
      expect(await s.takeGarbage(Date.now() + 1, 10)).toEqual(['held']);
      expect(await s.takeLease('gc-hold/backup-1', 'backup', Date.now(), 60_000)).toBe(true);
      expect(await s.takeGarbage(Date.now() + 1, 10)).toEqual([]);
      expect(await s.referencedBlobs(['held'])).toEqual(new Set(['held']));
      // Renewed into the past by its holder: lapsed, so the collector goes on.
      expect(await s.takeLease('gc-hold/backup-1', 'backup', Date.now() - 120_000, 60_000)).toBe(true);
      expect(await s.takeGarbage(Date.now() + 1, 10)).toEqual(['held']);
    }));

    it('listUploads: active only, by key bytes then creation then id, with prefix and limit', withStore(async (s) => {
      await s.createUpload('b', upload('u-b2', 'b', 20));
      await s.createUpload('b', upload('u-b1', 'b', 10));
      await s.createUpload('b', upload('u-a', 'a', 30));
      await s.createUpload('b', upload('u-y', '🙂', 1));
      await s.createUpload('b', upload('u-x', '\uFFFF', 1));
      await s.createUpload('b', upload('u-dir2', 'a/2', 5));
      await s.createUpload('b', upload('u-dir1', 'a/1', 5));
      await s.createUpload('b', upload('z-tie', 'b', 10));
      await s.createUpload('b', upload('u-done', 'b', 15));
      await s.abortUpload('b', 'u-done', 'b');
      await s.createUpload('other', upload('u-other', 'a', 0));
      const ids = async (o: Partial<Parameters<MetadataStore['listUploads']>[1]> = {}) =>
        (await s.listUploads('b', { prefix: '', limit: 100, ...o })).map((u) => u.uploadId);
      expect(await ids()).toEqual(['u-a', 'u-dir1', 'u-dir2', 'u-b1', 'z-tie', 'u-b2', 'u-x', 'u-y']);
      expect(await ids({ prefix: 'a/' })).toEqual(['u-dir1', 'u-dir2']);
      expect(await ids({ prefix: 'a' })).toEqual(['u-a', 'u-dir1', 'u-dir2']);
      expect(await ids({ prefix: '\uFFFF' })).toEqual(['u-x']);
      expect(await ids({ prefix: 'nothing' })).toEqual([]);
      expect(await ids({ limit: 2 })).toEqual(['u-a', 'u-dir1']);
      expect(await s.listUploads('missing', { prefix: '', limit: 10 })).toEqual([]);
      const first = (await s.listUploads('b', { prefix: 'a/1', limit: 1 }))[0]!;
      expect(first).toEqual({ ...upload('u-dir1', 'a/1', 5) });
    }));

    it('listUploads markers: key alone skips the key, with an upload id resumes within it', withStore(async (s) => {
      await s.createUpload('b', upload('u-a', 'a', 1));
      await s.createUpload('b', upload('u-b3', 'b', 30));
      await s.createUpload('b', upload('u-b1', 'b', 10));
      await s.createUpload('b', upload('u-b2', 'b', 20));
      await s.createUpload('b', upload('u-c', 'c', 0));
      const ids = async (o: Partial<Parameters<MetadataStore['listUploads']>[1]>) =>
        (await s.listUploads('b', { prefix: '', limit: 100, ...o })).map((u) => u.uploadId);
      expect(await ids({ keyMarker: 'a' })).toEqual(['u-b1', 'u-b2', 'u-b3', 'u-c']);
      expect(await ids({ keyMarker: 'b' })).toEqual(['u-c']);
      expect(await ids({ keyMarker: 'aa' })).toEqual(['u-b1', 'u-b2', 'u-b3', 'u-c']);
      expect(await ids({ keyMarker: 'b', uploadIdMarker: 'u-b1' })).toEqual(['u-b2', 'u-b3', 'u-c']);
      expect(await ids({ keyMarker: 'b', uploadIdMarker: 'u-b3' })).toEqual(['u-c']);
      expect(await ids({ uploadIdMarker: 'u-b2' })).toEqual(['u-a', 'u-b1', 'u-b2', 'u-b3', 'u-c']);
      // An unknown upload id (or one of another key) skips the key; a finished one still positions the listing.
      expect(await ids({ keyMarker: 'b', uploadIdMarker: 'bogus' })).toEqual(['u-c']);
      expect(await ids({ keyMarker: 'b', uploadIdMarker: 'u-a' })).toEqual(['u-c']);
      await s.abortUpload('b', 'u-b2', 'b');
      expect(await ids({ keyMarker: 'b', uploadIdMarker: 'u-b2' })).toEqual(['u-b3', 'u-c']);
      expect(await ids({ prefix: 'b', keyMarker: 'b', uploadIdMarker: 'u-b1' })).toEqual(['u-b3']);
      // Paging one at a time with the last row as the markers visits every upload once, in order.
      const seen: string[] = [];
      let marker: { keyMarker?: string; uploadIdMarker?: string } = {};
      for (;;) {
        const page = await s.listUploads('b', { prefix: '', limit: 1, ...marker });
        if (page.length === 0) break;
        seen.push(page[0]!.uploadId);
        marker = { keyMarker: page[0]!.key, uploadIdMarker: page[0]!.uploadId };
      }
      expect(seen).toEqual(['u-a', 'u-b1', 'u-b3', 'u-c']);
    }));
  });
}
