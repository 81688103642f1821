/**
 * Subrequest counting (src/runtime/in-workerd/limits/counters.ts), run in Node with a plain object standing for a
 * bucket binding: each request's own counts, the limit's first refused call, bucket operations counted through
 * the wrapped binding and its multipart uploads.
 */
import { describe, expect, it } from 'vitest';
import { subrequestCounters, type Counts } from '../../../src/runtime/in-workerd/limits/counters.js';

/** A stand-in for workerd's bucket binding: records each call. */
function bucket(calls: string[]) {
  const upload = { uploadPart: async () => { calls.push('uploadPart'); return {}; }, complete: async () => { calls.push('complete'); return {}; } };
  return {
    get: async (key: string) => { calls.push(`get ${key}`); return null; },
    createMultipartUpload: async () => { calls.push('create'); return upload; },
    resumeMultipartUpload: () => { calls.push('resume'); return upload; },
    name: 'B',
  };
}

describe('subrequest counters', () => {
  it('counts calls of the request in progress and refuses the one past the limit', () => {
    let counts: Counts | undefined = { fetch: 0, bucket: 0 };
    const c = subrequestCounters({ limits: { fetch: 2, bucket: 0 }, buckets: [] }, () => counts);
    expect(c.over('fetch')).toBeUndefined();
    expect(c.over('fetch')).toBeUndefined();
    expect(c.over('fetch')?.message).toBe('Too many subrequests.');
    expect(c.over('bucket')).toBeUndefined(); // limit 0: not counted
    expect(counts).toEqual({ fetch: 3, bucket: 0 });
    counts = { fetch: 0, bucket: 0 }; // the next request's own budget
    expect(c.over('fetch')).toBeUndefined();
    counts = undefined; // outside any request
    expect(c.over('fetch')).toBeUndefined();
  });

  it('counts every bucket operation, multipart parts included; resuming an upload is no call', async () => {
    const counts: Counts = { fetch: 0, bucket: 0 };
    const calls: string[] = [];
    const c = subrequestCounters({ limits: { fetch: 0, bucket: 4 }, buckets: ['BUCKET'] }, () => counts);
    const env = { BUCKET: bucket(calls), OTHER: bucket([]), TEXT: 'x' };
    const counted = c.withCountedBuckets(env);
    expect(c.withCountedBuckets(env)).toBe(counted);
    expect(counted.TEXT).toBe('x');
    expect(counted.BUCKET.name).toBe('B');
    await counted.BUCKET.get('k');
    const upload = await counted.BUCKET.createMultipartUpload();
    await upload.uploadPart();
    counted.BUCKET.resumeMultipartUpload().uploadPart();
    expect(counts.bucket).toBe(4);
    await expect(counted.BUCKET.get('refused')).rejects.toThrow('Too many subrequests.');
    await counted.OTHER.get('free'); // not a counted binding
    expect(calls).toEqual(['get k', 'create', 'uploadPart', 'resume', 'uploadPart']);
  });

  it('leaves env as it is when no bucket is counted', () => {
    const c = subrequestCounters({ limits: { fetch: 5, bucket: 0 }, buckets: [] }, () => undefined);
    const env = { BUCKET: bucket([]) };
    expect(c.withCountedBuckets(env)).toBe(env);
    expect(c.withCountedBuckets(null)).toBeNull();
  });
});
