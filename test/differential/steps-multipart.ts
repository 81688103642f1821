/** Differential steps: multipart uploads, their errors in the reference's order, idempotency and expiry. */
/* eslint-disable @typescript-eslint/no-explicit-any */
import { DIFF, md5PartEtags } from './differences.js';
import { step, type StepGroup } from './step.js';

const partEtags = { difference: DIFF.partEtags, expected: (mf: any) => md5PartEtags(mf) };

/** Multipart group (parts of 5 MiB, the minimum). */
export const multipartSteps: StepGroup = {
  name: 'mpu',
  steps: [
    step('create an upload', async (b, ctx) => { ctx.s.u = await b.createMultipartUpload('big', { httpMetadata: { contentType: 'application/x-big' }, customMetadata: { from: 'create' } }); return ctx.s.u; }),
    step('part number 0 is a TypeError', (b, ctx) => ctx.s.u.uploadPart(0, 'x')),
    step('part number 10001 is a TypeError', (b, ctx) => ctx.s.u.uploadPart(10001, 'x')),
    step('a null part is a TypeError', (b, ctx) => ctx.s.u.uploadPart(1, null)),
    step('a part of unknown length is a TypeError', (b, ctx) => ctx.s.u.uploadPart(1, new ReadableStream({ start(c) { c.close(); } }))),
    step('upload part 1 (5 MiB)', async (b, ctx) => { ctx.s.p1 = await ctx.s.u.uploadPart(1, ctx.bytes(5 * 1024 * 1024, 1)); return ctx.s.p1; }, partEtags),
    step('upload part 2 (5 MiB, as a Blob)', async (b, ctx) => { ctx.s.p2 = await ctx.s.u.uploadPart(2, new Blob([ctx.bytes(5 * 1024 * 1024, 2) as any])); return Object.keys(ctx.s.p2); }),
    step('upload part 3 (the small last part, a string)', async (b, ctx) => { ctx.s.p3 = await ctx.s.u.uploadPart(3, 'the tail'); return ctx.s.p3.partNumber; }),
    step('complete with a wrong etag is InvalidPart', (b, ctx) => ctx.s.u.complete([ctx.s.p1, { partNumber: 2, etag: 'nope' }, ctx.s.p3])),
    step('complete with an unknown part number is InvalidPart', (b, ctx) => ctx.s.u.complete([ctx.s.p1, { partNumber: 9, etag: ctx.s.p2.etag }])),
    step('complete with duplicate part numbers is InternalError', (b, ctx) => ctx.s.u.complete([ctx.s.p1, ctx.s.p1, ctx.s.p3])),
    step('complete with the small part in the middle is EntityTooSmall', (b, ctx) => ctx.s.u.complete([ctx.s.p1, ctx.s.p3, ctx.s.p2])),
    step('complete with part number 0 is a TypeError', (b, ctx) => ctx.s.u.complete([{ partNumber: 0, etag: 'x' }])),
    step('complete with a non-array is a TypeError', (b, ctx) => ctx.s.u.complete('parts')),
    step('complete in shuffled order (small part last): etag over sorted parts', async (b, ctx) => { ctx.s.done = await ctx.s.u.complete([ctx.s.p2, ctx.s.p1, ctx.s.p3]); return ctx.s.done; }),
    step('the completed object reads whole', async (b) => { const o = await b.get('big'); const buf = new Uint8Array(await o.arrayBuffer()); return { o, size: buf.length, tail: new TextDecoder().decode(buf.subarray(buf.length - 8)) }; }),
    step('a range across the part boundary', async (b, ctx) => {
      const o = await b.get('big', { range: { offset: 5 * 1024 * 1024 - 3, length: 6 } });
      const got = [...new Uint8Array(await o.arrayBuffer())];
      const want = [...ctx.bytes(5 * 1024 * 1024, 1).subarray(5 * 1024 * 1024 - 3), ...ctx.bytes(3, 2)];
      return { range: o.range, same: JSON.stringify(got) === JSON.stringify(want) };
    }),
    step('a suffix reaching into the last part', async (b) => { const o = await b.get('big', { range: { suffix: 10 } }); return { range: o.range, bytes: (await o.bytes()).length }; }),
    step('complete again is NoSuchUpload', (b, ctx) => ctx.s.u.complete([ctx.s.p1])),
    step('uploadPart after complete is NoSuchUpload', (b, ctx) => ctx.s.u.uploadPart(4, 'x')),
    step('abort after complete is a silent no-op', async (b, ctx) => ({ r: await ctx.s.u.abort(), still: (await b.head('big'))?.size })),
    step('resume with a bogus id: uploadPart is NoSuchUpload', (b) => b.resumeMultipartUpload('big', 'bogus').uploadPart(1, 'x')),
    step('resume with a bogus id: complete is InternalError', (b) => b.resumeMultipartUpload('big', 'bogus').complete([])),
    step('resume with a bogus id: abort is InternalError', (b) => b.resumeMultipartUpload('big', 'bogus').abort()),
    step('resume never throws and keeps key and id', (b) => { const u = b.resumeMultipartUpload('k'.repeat(2000), 'whatever'); return Promise.resolve({ key: u.key.length, uploadId: u.uploadId }); }),
    step('resume with an over-long key fails on use with InvalidObjectName', (b) => b.resumeMultipartUpload('k'.repeat(1025), 'whatever').uploadPart(1, 'x')),
    step('createMultipartUpload with an over-long key', (b) => b.createMultipartUpload('k'.repeat(1025))),
    step('resume a real upload with the wrong key is NoSuchUpload', async (b) => { const u = await b.createMultipartUpload('real'); return b.resumeMultipartUpload('other', u.uploadId).uploadPart(1, 'x'); }),
    step('resume a real upload and complete it', async (b) => { const u = await b.createMultipartUpload('resumed'); const r = b.resumeMultipartUpload('resumed', u.uploadId); const p = await r.uploadPart(1, 'only part'); return r.complete([p]); }),
    step('small part 1 passed last: past EntityTooSmall, then BadUpload', async (b, ctx) => {
      const u = await b.createMultipartUpload('shape');
      const small = await u.uploadPart(1, 'small');
      const big = await u.uploadPart(2, ctx.bytes(5 * 1024 * 1024, 3));
      return u.complete([big, small]);
    }),
    step('unequal part sizes are BadUpload', async (b, ctx) => {
      const u = await b.createMultipartUpload('unequal');
      const a = await u.uploadPart(1, ctx.bytes(5 * 1024 * 1024, 4));
      const c = await u.uploadPart(2, ctx.bytes(5 * 1024 * 1024 + 1, 5));
      const t = await u.uploadPart(3, 'tail');
      return u.complete([a, c, t]);
    }),
    step('a last part bigger than the others is BadUpload', async (b, ctx) => {
      const u = await b.createMultipartUpload('lastbig');
      const a = await u.uploadPart(1, ctx.bytes(5 * 1024 * 1024, 6));
      const c = await u.uploadPart(2, ctx.bytes(5 * 1024 * 1024 + 10, 7));
      return u.complete([a, c]);
    }),
    step('gaps in part numbers are fine', async (b, ctx) => { const u = await b.createMultipartUpload('gaps'); const p3 = await u.uploadPart(3, ctx.bytes(5 * 1024 * 1024, 8)); const p7 = await u.uploadPart(7, 'se7en'); const o = await u.complete([p3, p7]); const t = await (await b.get('gaps', { range: { suffix: 5 } })).text(); return { o, t }; }),
    step('an empty part list makes an empty object', async (b) => { const u = await b.createMultipartUpload('none'); return u.complete([]); }),
    step('re-uploading a part number invalidates the old etag', async (b) => {
      const u = await b.createMultipartUpload('redo');
      const old = await u.uploadPart(1, 'first version');
      const fresh = await u.uploadPart(1, 'second version');
      let err;
      try { await u.complete([old]); } catch (e: any) { err = e.message; }
      const o = await u.complete([fresh]);
      return { err, text: await (await b.get('redo')).text(), size: o.size };
    }),
    step('parts not listed are discarded', async (b) => { const u = await b.createMultipartUpload('subset'); const a = await u.uploadPart(1, 'aaa'); await u.uploadPart(2, 'bbb'); await u.complete([a]); return (await b.get('subset')).text(); }),
    step('several uploads of one key at once; the last complete wins', async (b) => {
      const u1 = await b.createMultipartUpload('multi');
      const u2 = await b.createMultipartUpload('multi');
      const a = await u1.uploadPart(1, 'one');
      const c = await u2.uploadPart(1, 'two');
      await u2.complete([c]);
      await u1.complete([a]);
      return (await b.get('multi')).text();
    }),
    step('abort an upload in progress, then uploadPart and complete are NoSuchUpload', async (b) => {
      const u = await b.createMultipartUpload('aborted');
      const p = await u.uploadPart(1, 'x');
      const r = await u.abort();
      const again = await u.abort();
      const errs: string[] = [];
      try { await u.uploadPart(2, 'y'); } catch (e: any) { errs.push(e.message); }
      try { await u.complete([p]); } catch (e: any) { errs.push(e.message); }
      return { r, again, errs, head: await b.head('aborted') };
    }),
    step('put over a completed multipart object replaces it', async (b) => { await b.put('big', 'small now'); return b.head('big'); }),
    step('uploadPart with a bad ssecKey', async (b) => { const u = await b.createMultipartUpload('sse'); return u.uploadPart(1, 'x', { ssecKey: 'XYZ' }); }),
    step('an upload 7 days old has expired', async (b, ctx) => {
      const u = await b.createMultipartUpload('old');
      ctx.advanceClock(7 * 86_400_000 + 1000);
      return u.uploadPart(1, 'late');
    }, {
      difference: DIFF.multipartExpiry,
      expected: (mf) => {
        if (mf.ok?.partNumber !== 1) throw new Error(`simulator answered ${JSON.stringify(mf)}`);
        return { error: { name: 'Error', message: 'uploadPart: The specified multipart upload does not exist. (10024)' } };
      },
    }),
  ],
};
