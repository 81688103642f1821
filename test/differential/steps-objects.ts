/** Differential steps: put/get/head/delete, value types, metadata, bodies, checksums, keys and limits, SSE-C, storage class. */
/* eslint-disable @typescript-eslint/no-explicit-any */
import { expect } from 'vitest';
import { DIFF, withStorageClass } from './differences.js';
import { step, type StepGroup } from './step.js';


/** The objects group. */
export const objectSteps: StepGroup = {
  name: 'objects',
  steps: [
    step('put a string', (b) => b.put('a', 'hello')),
    step('head it', (b) => b.head('a')),
    step('get it with its body', async (b) => { const o = await b.get('a'); return { o, text: await o.text() }; }),
    step('get a missing key is null', (b) => b.get('missing')),
    step('head a missing key is null', (b) => b.head('missing')),
    step('put an ArrayBuffer', (b) => b.put('ab', new Uint8Array([1, 2, 3, 4]).buffer)),
    step('put a view with an offset stores only the view', async (b) => { const u = new Uint8Array([9, 8, 7, 6, 5]); await b.put('view', u.subarray(1, 3)); const o = await b.get('view'); return { o, bytes: [...new Uint8Array(await o.arrayBuffer())] }; }),
    step('put a DataView', (b) => b.put('dv', new DataView(new Uint8Array([1, 2, 3]).buffer))),
    step('put a Blob ignores its type', (b) => b.put('blob', new Blob(['blobby'], { type: 'text/x-blob' }))),
    step('put null stores an empty object', (b) => b.put('null', null)),
    step('put undefined stores an empty object', (b) => b.put('undef', undefined)),
    step('put a FixedLengthStream readable', async (b, ctx) => {
      const { readable, writable } = new ctx.FixedLengthStream(11);
      const w = writable.getWriter();
      void w.write(new TextEncoder().encode('hello ')); void w.write(new TextEncoder().encode('world')); void w.close();
      const o = await b.put('fls', readable);
      return { o, text: await (await b.get('fls')).text() };
    }),
    step('put a stream of unknown length is a TypeError', (b) => b.put('s', new ReadableStream({ start(c) { c.enqueue(new Uint8Array([1])); c.close(); } }))),
    step('put a number value is a TypeError', (b) => b.put('num', 42)),
    step('put a plain object value is a TypeError', (b) => b.put('obj', { a: 1 })),
    step('a non-string key is coerced', async (b) => { await b.put(123, 'n'); return b.head('123'); }),
    step('put with httpMetadata as an object', (b) => b.put('hm', 'x', { httpMetadata: { contentType: 'text/plain', contentLanguage: 'en', contentDisposition: 'inline', contentEncoding: 'identity', cacheControl: 'no-store', cacheExpiry: new Date(1234567000), bogus: 'dropped' } })),
    step('head shows the stored httpMetadata', (b) => b.head('hm')),
    step('writeHttpMetadata sets the headers', async (b) => { const o = await b.head('hm'); const h = new Headers({ 'x-keep': '1', 'content-type': 'old' }); const r = o.writeHttpMetadata(h); return { r, h }; }),
    step('put with httpMetadata as Headers', (b) => b.put('hh', 'x', { httpMetadata: new Headers({ 'content-type': 'application/json', expires: 'Wed, 21 Oct 2015 07:28:00 GMT', 'cache-control': 'max-age=60', etag: 'ignored', 'x-other': 'ignored' }) })),
    step('head of the Headers-metadata object', (b) => b.head('hh')),
    step('customMetadata values are coerced to strings', async (b) => { await b.put('cm', 'x', { customMetadata: { a: 1, b: 'two', c: true } }); return b.head('cm'); }),
    step('an overwrite replaces metadata and the etag', async (b) => { await b.put('cm', 'y'); return b.head('cm'); }),
    step('a body reads once', async (b) => { const o = await b.get('a'); const first = await o.text(); const used = o.bodyUsed; let second; try { await o.text(); } catch (e: any) { second = [e.name, e.message]; } return { first, used, second }; }),
    step('bodyUsed is false before reading and the body is a stream', async (b) => { const o = await b.get('a'); const before = o.bodyUsed; const same = o.body === o.body; const r = o.body.getReader(); let n = 0; for (;;) { const { done, value } = await r.read(); if (done) break; n += value.byteLength; } return { before, same, n, after: o.bodyUsed }; }),
    step('json(), bytes() and blob()', async (b) => {
      await b.put('j', '{"x":[1,2]}', { httpMetadata: { contentType: 'application/json' } });
      const j = await (await b.get('j')).json();
      const by = await (await b.get('j')).bytes();
      const bl = await (await b.get('j')).blob();
      return { j, bytes: by.length, bytesType: by.constructor.name, blobType: bl.type, blobSize: bl.size };
    }),
    step('json() of invalid JSON rejects with a SyntaxError', async (b) => { try { await (await b.get('a')).json(); return 'no error'; } catch (e: any) { return e.name; } }),
    step('an empty object still has a body', async (b) => { const o = await b.get('null'); return { o, text: await o.text() }; }),
    step('put with the right md5 (hex)', (b) => b.put('md5', 'hello', { md5: '5d41402abc4b2a76b9719d911017c592' })),
    step('put with the right md5 (ArrayBuffer)', (b) => b.put('md5b', 'hello', { md5: new Uint8Array([0x5d, 0x41, 0x40, 0x2a, 0xbc, 0x4b, 0x2a, 0x76, 0xb9, 0x71, 0x9d, 0x91, 0x10, 0x17, 0xc5, 0x92]).buffer })),
    step('put with a wrong md5 is BadDigest', (b) => b.put('md5', 'hello', { md5: '00000000000000000000000000000000' })),
    step('md5 of the wrong length (string)', (b) => b.put('md5', 'hello', { md5: 'abc' })),
    step('md5 of the wrong length (buffer)', (b) => b.put('md5', 'hello', { md5: new Uint8Array(15).buffer })),
    step('md5 that is not hex', (b) => b.put('md5', 'hello', { md5: 'zz'.repeat(16) })),
    step('sha1 right', (b) => b.put('sha1', 'hello', { sha1: 'aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d' })),
    step('sha256 right, given in upper case', (b) => b.put('sha256', 'hello', { sha256: '2CF24DBA5FB0A30E26E83B2AC5B9E29E1B161E5C1FA7425E73043362938B9824' })),
    step('sha384 right', (b) => b.put('sha384', 'hello', { sha384: '59e1748777448c69de6b800d7a33bbfb9ff1b463e44354c3553bcdb9c666fa90125a3c79f90397bdf5f6a13de828684f' })),
    step('sha512 right', (b) => b.put('sha512', 'hello', { sha512: '9b71d224bd62f3785d96d46ad3ea3d73319bfbc2890caadae2dff72519673ca72323c3d99ba5c11d7c7acc6e14b8c5da0c4663475c2e5c3adef46f73bcdec043' })),
    step('sha256 wrong is BadDigest', (b) => b.put('sha256', 'hello', { sha256: '00'.repeat(32) })),
    step('sha1 of the wrong length', (b) => b.put('sha1', 'hello', { sha1: 'abcd' })),
    step('two hashes are a TypeError', (b) => b.put('two', 'hello', { md5: '5d41402abc4b2a76b9719d911017c592', sha1: 'aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d' })),
    step('checksums belong to the version: an overwrite without hash keeps only md5', async (b) => { await b.put('sha1', 'hello'); return b.head('sha1'); }),
    step('checksum getters return ArrayBuffers', async (b) => { const o = await b.head('sha512'); return { md5: o.checksums.md5, sha512len: o.checksums.sha512.byteLength, sha1: o.checksums.sha1 === undefined }; }),
    step('a 1024-byte key is valid', (b) => b.put('k'.repeat(1024), 'x')),
    step('a 1025-byte key is InvalidObjectName on put', (b) => b.put('k'.repeat(1025), 'x')),
    step('a 1025-byte key on get', (b) => b.get('k'.repeat(1025))),
    step('a 1025-byte key on head', (b) => b.head('k'.repeat(1025))),
    step('a 1025-byte key on delete', (b) => b.delete('k'.repeat(1025))),
    step('key length counts UTF-8 bytes (512 x é)', (b) => b.put('é'.repeat(512), 'x')),
    step('key length counts UTF-8 bytes (513 x é)', (b) => b.put('é'.repeat(513), 'x')),
    step('the empty key is valid', async (b) => { await b.put('', 'empty key'); const o = await b.get(''); return { o, text: await o.text() }; }),
    step('2000 bytes of custom metadata are accepted', (b) => b.put('meta1', 'x', { customMetadata: { k: 'v'.repeat(1999) } })),
    step('3000 bytes of custom metadata', (b) => b.put('meta2', 'x', { customMetadata: { k: 'v'.repeat(2999) } }), {
      difference: DIFF.customMetadataLimit,
      expected: (mf) => {
        if (mf.error?.message !== 'put: Your metadata headers exceed the maximum allowed metadata size. (10012)') throw new Error(`simulator answered ${JSON.stringify(mf)}`);
        return { ok: expectObject('meta2', 1, { k: 'v'.repeat(2999) }) };
      },
    }),
    step('9000 bytes of custom metadata are MetadataTooLarge', (b) => b.put('meta3', 'x', { customMetadata: { k: 'v'.repeat(8999) } })),
    step('delete one key', async (b) => { const r = await b.delete('a'); return { r, after: await b.head('a') }; }),
    step('delete an array with missing keys and duplicates', async (b) => { const r = await b.delete(['ab', 'dv', 'nope', 'ab']); return { r, ab: await b.head('ab'), dv: await b.head('dv') }; }),
    step('delete [] is a no-op', (b) => b.delete([])),
    step('one bad key fails the whole delete and deletes nothing', async (b) => { let err; try { await b.delete(['blob', 'k'.repeat(1025)]); } catch (e: any) { err = e.message; } return { err, blob: (await b.head('blob')) !== null }; }),
    step('storageClass InfrequentAccess', (b) => b.put('ia', 'x', { storageClass: 'InfrequentAccess' }), {
      difference: DIFF.storageClass,
      expected: (mf) => withStorageClass(mf, 'InfrequentAccess'),
    }),
    step('an unknown storageClass', (b) => b.put('bogus-class', 'x', { storageClass: 'Glacier' }), {
      difference: DIFF.storageClass,
      expected: (mf) => {
        if (!mf.ok?.object) throw new Error(`simulator answered ${JSON.stringify(mf)}`);
        return { error: { name: 'Error', message: expect.stringMatching(/^put: .*\(\d+\)$/) } };
      },
    }),
    step('ssecKey in upper-case hex has an invalid format', (b) => b.put('e', 'x', { ssecKey: 'AB'.repeat(32) })),
    step('ssecKey of the wrong length', (b) => b.put('e', 'x', { ssecKey: 'ab'.repeat(16) })),
    step('ssecKey buffer of the wrong length', (b) => b.put('e', 'x', { ssecKey: new Uint8Array(31).buffer })),
    step('put with an SSE-C key', (b) => b.put('enc', 'secret text', { ssecKey: 'ab'.repeat(32) }), {
      difference: DIFF.ssec,
      expected: (mf) => withStorageClass({ ok: { ...mf.ok, ssecKeyMd5: 'string' } }),
    }),
    step('get an SSE-C object with its key', async (b) => { const o = await b.get('enc', { ssecKey: 'ab'.repeat(32) }); return { o, text: await o.text() }; }, {
      difference: DIFF.ssec,
      expected: (mf) => withStorageClass({ ok: { ...mf.ok, o: { ...mf.ok.o, ssecKeyMd5: 'string' } } }),
    }),
    step('a range of an SSE-C object', async (b) => { const o = await b.get('enc', { ssecKey: 'ab'.repeat(32), range: { offset: 7, length: 4 } }); return { range: o.range, text: await o.text() }; }),
    step('get an SSE-C object without the key', async (b) => { const o = await b.get('enc'); return { text: await o.text() }; }, {
      difference: DIFF.ssec,
      expected: () => ({ error: { name: 'Error', message: expect.stringMatching(/^get: .*\(\d+\)$/) } }),
    }),
    step('get an SSE-C object with another key', async (b) => { const o = await b.get('enc', { ssecKey: 'cd'.repeat(32) }); return { text: await o.text() }; }, {
      difference: DIFF.ssec,
      expected: () => ({ error: { name: 'Error', message: expect.stringMatching(/^get: .*\(\d+\)$/) } }),
    }),
    step('object properties are read-only', async (b) => { const o: any = await b.head('hm'); try { o.key = 'changed'; return 'assigned'; } catch (e: any) { return e.name; } }),
    step('httpMetadata is a copy', async (b) => { const o = await b.head('hm'); o.httpMetadata.contentType = 'mutated'; return o.httpMetadata.contentType === 'mutated' ? (await b.head('hm')).httpMetadata.contentType : 'frozen'; }),
  ],
};

/** The normalized shape of a fresh single-put object whose metadata we know. */
function expectObject(key: string, size: number, customMetadata: Record<string, string>) {
  return {
    object: true, key, size, etag: expect.stringMatching(/^[0-9a-f]{32}$/), httpEtag: expect.stringMatching(/^"[0-9a-f]{32}"$/),
    version: 'string', uploaded: 'recent Date', checksums: { md5: expect.stringMatching(/^[0-9a-f]{32}$/) }, httpMetadata: {},
    customMetadata, range: { undefined: true }, storageClass: 'Standard', ssecKeyMd5: { undefined: true }, hasBody: false,
  };
}
