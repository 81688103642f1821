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
  });
}
