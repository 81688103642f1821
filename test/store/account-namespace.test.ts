/**
 * The account view of the store (`store.forAccount`) maps every bucket name the same way, including the S3-only
 * extensions (conditional deletes, upload outcomes, part layouts, conditional completion): two accounts each
 * with a bucket `shared` never reach each other's objects or uploads, and the root names them `<account>/shared`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BucketStore } from '../../src/store/types.js';
import { openTemp } from './helpers.js';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);

describe('account namespaces and the S3 store extensions', () => {
  let store: BucketStore | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it("conditional deletes, upload outcomes, part layouts and completeIf stay inside the account's bucket", async () => {
    store = (await openTemp()).store;
    const a = store.forAccount(A);
    const b = store.forAccount(B);
    await a.createBucket('shared');
    await b.createBucket('shared');
    const stored = await a.bucket('shared').put('k', 'of a');
    const upload = await a.bucket('shared').createMultipartUpload('mp');
    const part = await upload.uploadPart(1, 'part of a');

    // B's bucket of the same name holds none of it.
    expect(await b.deleteObjectsIf('shared', [{ key: 'k', etag: stored!.etag }])).toEqual([{ key: 'k', outcome: 'missing' }]);
    expect(await b.deleteObjectsIf('shared', [{ key: 'k', etag: '*' }])).toEqual([{ key: 'k', outcome: 'missing' }]);
    expect(await b.objectParts('shared', 'k')).toBeNull();
    expect(await b.uploadOutcome('shared', 'mp', upload.uploadId)).toEqual({ state: 'missing' });
    const resumed = b.bucket('shared').resumeMultipartUpload('mp', upload.uploadId);
    // An upload the bucket does not hold: the binding's answer for an unknown upload id (10001, as Miniflare).
    await expect(resumed.completeIf!([part], new Headers({ 'if-none-match': '*' }))).rejects.toThrow(/\(10001\)$/);

    // A's own view sees its object and upload; the root names them `<account>/shared`.
    expect(await a.objectParts('shared', 'k')).toEqual({ etag: stored!.etag, partSizes: null });
    expect(await a.uploadOutcome('shared', 'mp', upload.uploadId)).toEqual({ state: 'active', ssecKeyMd5: null, checksumAlgorithm: null, checksumType: null });
    expect(await store.uploadOutcome(`${A}/shared`, 'mp', upload.uploadId)).toEqual({ state: 'active', ssecKeyMd5: null, checksumAlgorithm: null, checksumType: null });
    expect(await store.objectParts(`${B}/shared`, 'k')).toBeNull();
    const done = await a.bucket('shared').resumeMultipartUpload('mp', upload.uploadId).completeIf!([part], new Headers({ 'if-none-match': '*' }));
    expect(await a.objectParts('shared', 'mp')).toEqual({ etag: done!.etag, partSizes: [9], partChecksums: [{}] });
    expect(await b.objectParts('shared', 'mp')).toBeNull();
    expect((await a.uploadOutcome('shared', 'mp', upload.uploadId)).state).toBe('completed');
    expect(await a.deleteObjectsIf('shared', [{ key: 'k', etag: stored!.etag }, { key: 'mp', etag: 'ffff' }])).toEqual([
      { key: 'k', outcome: 'deleted' }, { key: 'mp', outcome: 'mismatch' },
    ]);
    expect((await a.bucket('shared').list()).objects.map((o) => o.key)).toEqual(['mp']);
  });
});
