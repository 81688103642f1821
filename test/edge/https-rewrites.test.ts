/** The Automatic HTTPS Rewrites scanner (edge/https-rewrites.ts) on its own: which attributes, which hosts, any chunking. */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CARRY_LIMIT, HttpsRewriter, rewritable, rewriteTags } from '../../src/edge/https-rewrites.js';

const served = async (host: string) => host === 'www.a.test' || host === 'a.test';

const PAGE = [
  '<!doctype html><html><head><link rel="stylesheet" href="http://www.a.test/s.css">',
  '<script src=\'http://a.test/app.js\'></script></head><body>',
  '<img SRC=http://www.a.test/x.png alt="http://www.a.test/alt">',
  '<form method="post" action="http://www.a.test:80/post"></form>',
  '<a href="http://www.a.test:8080/port">port</a>',
  '<a href="http://www.a.test.evil.test/">lookalike</a>',
  '<a href="http://other.test/">other</a>',
  '<a data-href="http://www.a.test/data">data</a>',
  '<p>see http://www.a.test/text and héllo ✓</p></body></html>',
].join('\n');

const EXPECTED = [
  '<!doctype html><html><head><link rel="stylesheet" href="https://www.a.test/s.css">',
  '<script src=\'https://a.test/app.js\'></script></head><body>',
  '<img SRC=https://www.a.test/x.png alt="http://www.a.test/alt">',
  '<form method="post" action="https://www.a.test/post"></form>',
  '<a href="http://www.a.test:8080/port">port</a>',
  '<a href="http://www.a.test.evil.test/">lookalike</a>',
  '<a href="http://other.test/">other</a>',
  '<a data-href="http://www.a.test/data">data</a>',
  '<p>see http://www.a.test/text and héllo ✓</p></body></html>',
].join('\n');

async function through(chunks: Buffer[]): Promise<string> {
  const out: Buffer[] = [];
  const stream = Readable.from(chunks).pipe(new HttpsRewriter(served));
  for await (const c of stream) out.push(c as Buffer);
  return Buffer.concat(out).toString('utf8');
}

describe('automatic HTTPS rewrites', () => {
  it('rewrites src, href and action of served hosts only, port 80 dropped, other ports and text untouched', async () => {
    expect(await rewriteTags(PAGE, served)).toBe(EXPECTED);
  });

  it('streams: the same bytes whatever the chunking (one byte at a time, tags and UTF-8 split)', async () => {
    const bytes = Buffer.from(PAGE, 'utf8');
    expect(await through([...bytes].map((b) => Buffer.from([b])))).toBe(EXPECTED);
    expect(await through([bytes.subarray(0, 100), bytes.subarray(100, 333), bytes.subarray(333)])).toBe(EXPECTED);
  });

  it('an unfinished tag longer than the carry limit passes as it is', async () => {
    const long = `<a title="${'x'.repeat(CARRY_LIMIT + 10)}`;
    const out = await through([Buffer.from(long), Buffer.from(' href="http://www.a.test/">')]);
    expect(out).toBe(`${long} href="http://www.a.test/">`);
  });

  it('only uncompressed HTML answers are rewritten', () => {
    expect(rewritable({ 'content-type': 'text/html; charset=utf-8' })).toBe(true);
    expect(rewritable({ 'content-type': 'text/html', 'content-encoding': 'gzip' })).toBe(false);
    expect(rewritable({ 'content-type': 'application/json' })).toBe(false);
    expect(rewritable({})).toBe(false);
  });
});
