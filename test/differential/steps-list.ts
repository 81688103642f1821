/** Differential steps: list with prefix, delimiter, cursor, startAfter, include, limit; byte order. */
/* eslint-disable @typescript-eslint/no-explicit-any */
import { DIFF, stripDelimiter, withoutUnrequested } from './differences.js';
import { step, type StepGroup } from './step.js';

const noTrailing = (delimiter: string) => ({ difference: DIFF.delimitedPrefixes, expected: (mf: any) => stripDelimiter(mf, delimiter) });

/** List group: keys B a a/1 a/2 a/b/1 a/b/2 a/c/1 ab b z, U+FFFF and an emoji. */
export const listSteps: StepGroup = {
  name: 'list',
  steps: [
    step('put the keys', async (b) => {
      for (const k of ['B', 'a', 'a/1', 'a/2', 'a/b/1', 'a/b/2', 'a/c/1', 'ab', 'b', 'z', '\uFFFF', '🙂']) {
        await b.put(k, k, { httpMetadata: { contentType: 'text/plain' }, customMetadata: { k } });
      }
      return null;
    }),
    step('list everything with both includes, in UTF-8 byte order', (b) => b.list({ include: ['httpMetadata', 'customMetadata'] })),
    step('list without include', (b) => b.list(), { difference: DIFF.listWithoutInclude, expected: (mf) => withoutUnrequested(mf, ['httpMetadata', 'customMetadata']) }),
    step('list with include httpMetadata only', (b) => b.list({ include: ['httpMetadata'] }), { difference: DIFF.listWithoutInclude, expected: (mf) => withoutUnrequested(mf, ['customMetadata']) }),
    step('list with include customMetadata only', (b) => b.list({ include: ['customMetadata'], prefix: 'a/' }), { difference: DIFF.listWithoutInclude, expected: (mf) => withoutUnrequested(mf, ['httpMetadata']) }),
    step('writeHttpMetadata on an entry listed with httpMetadata', async (b) => { const l = await b.list({ include: ['httpMetadata'], limit: 1 }); const h = new Headers(); l.objects[0].writeHttpMetadata(h); return h; }),
    step('pages of 2 until not truncated', async (b) => {
      const pages: any[] = [];
      let cursor;
      for (let i = 0; i < 10; i++) {
        const l: any = await b.list({ limit: 2, cursor, include: ['customMetadata'] });
        pages.push({ keys: l.objects.map((o: any) => o.key), truncated: l.truncated, hasCursor: 'cursor' in l });
        if (!l.truncated) break;
        cursor = l.cursor;
      }
      return pages;
    }),
    step('prefix a/', (b) => b.list({ prefix: 'a/', include: ['httpMetadata', 'customMetadata'] })),
    step('prefix "" lists everything', async (b) => (await b.list({ prefix: '' })).objects.length),
    step('prefix matching nothing', (b) => b.list({ prefix: 'nothing' })),
    step('delimiter /', (b) => b.list({ delimiter: '/', include: ['httpMetadata', 'customMetadata'] }), noTrailing('/')),
    step('prefix a/ with delimiter /', (b) => b.list({ prefix: 'a/', delimiter: '/', include: ['httpMetadata', 'customMetadata'] }), noTrailing('/')),
    step('prefix a with delimiter /', (b) => b.list({ prefix: 'a', delimiter: '/', include: ['httpMetadata', 'customMetadata'] }), noTrailing('/')),
    step('a multi-character delimiter', (b) => b.list({ delimiter: '/b/', include: ['httpMetadata', 'customMetadata'] }), noTrailing('/b/')),
    step('delimiter "" means no delimiter', async (b) => { const l = await b.list({ delimiter: '' }); return { n: l.objects.length, p: l.delimitedPrefixes }; }),
    step('delimiter / in pages of 2: prefixes count toward the limit', async (b) => {
      const pages: any[] = [];
      let cursor;
      for (let i = 0; i < 10; i++) {
        const l: any = await b.list({ limit: 2, delimiter: '/', cursor });
        pages.push({ keys: l.objects.map((o: any) => o.key), prefixes: l.delimitedPrefixes, truncated: l.truncated });
        if (!l.truncated) break;
        cursor = l.cursor;
      }
      return pages;
    }, { difference: DIFF.delimitedPrefixes, expected: (mf) => ({ ok: mf.ok.map((p: any) => ({ ...p, prefixes: p.prefixes.map((x: string) => x.replace(/\/$/, '')) })) }) }),
    step('startAfter a/2', async (b) => (await b.list({ startAfter: 'a/2' })).objects.map((o: any) => o.key)),
    step('startAfter past every key', (b) => b.list({ startAfter: '\u{10FFFF}' })),
    step('startAfter with a prefix', async (b) => (await b.list({ prefix: 'a/', startAfter: 'a/b/1' })).objects.map((o: any) => o.key)),
    step('cursor and startAfter: the larger wins', async (b) => {
      const first: any = await b.list({ limit: 2 });
      const later = await b.list({ cursor: first.cursor, startAfter: 'b' });
      const earlier = await b.list({ cursor: first.cursor, startAfter: 'A' });
      return { later: later.objects.map((o: any) => o.key), earlier: earlier.objects.map((o: any) => o.key) };
    }),
    step('exactly limit entries left: not truncated, no cursor', (b) => b.list({ prefix: 'a/', limit: 5, include: ['httpMetadata', 'customMetadata'] })),
    step('limit 1', (b) => b.list({ limit: 1, include: ['httpMetadata', 'customMetadata'] })),
    step('limit 0 is InvalidMaxKeys', (b) => b.list({ limit: 0 })),
    step('limit 1001 is InvalidMaxKeys', (b) => b.list({ limit: 1001 })),
    step('limit -2 is InvalidMaxKeys', (b) => b.list({ limit: -2 })),
    step('limit 1.5 is truncated to 1', async (b) => (await b.list({ limit: 1.5 })).objects.length),
    step('an unknown include value is a RangeError', (b) => b.list({ include: ['bogus'] })),
    step('include that is not an array is a TypeError', (b) => b.list({ include: 'httpMetadata' })),
    step('a key with NUL and ../ is fine', async (b) => { await b.put('x\u0000y/../z', 'n'); return (await b.list({ prefix: 'x' })).objects.map((o: any) => o.key); }),
    step('150 keys with include: paging on truncated sees them all once', async (b) => {
      for (let i = 0; i < 150; i++) await b.put(`many/${String(i).padStart(3, '0')}`, 'x', { customMetadata: { i: String(i) } });
      const keys: string[] = [];
      let cursor;
      let pages = 0;
      for (;;) {
        const l: any = await b.list({ prefix: 'many/', include: ['customMetadata'], cursor });
        pages++;
        keys.push(...l.objects.map((o: any) => o.key));
        if (!l.truncated) break;
        cursor = l.cursor;
      }
      return { count: keys.length, unique: new Set(keys).size, sorted: keys.every((k, i) => i === 0 || keys[i - 1]! < k), pagesAtMost2: pages <= 2 };
    }, { difference: DIFF.includePageCap, expected: (mf) => ({ ok: { ...mf.ok, pagesAtMost2: true } }) }),
    step('in-progress multipart uploads are not listed', async (b) => { await b.createMultipartUpload('mpu-pending'); return { list: (await b.list({ prefix: 'mpu' })).objects.length, head: await b.head('mpu-pending') }; }),
  ],
};
