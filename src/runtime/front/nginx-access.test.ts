/** The nginx front's access log lines into the edge's access records (nginx-access.ts). */
import { describe, expect, it } from 'vitest';
import { parseAccessLine } from './nginx-access-line.js';

const line = (o: Record<string, unknown>) => JSON.stringify({ a: '203.0.113.7', m: 'GET', s: 200, t: 0.012, i: '', o: 5, r: '', p: '', id: 'aaaaaaaaaaaaaaaa-STR', ...o });

describe('parseAccessLine', () => {
  it("takes the runtime's fields from its record header, the rest from nginx", () => {
    const r = JSON.stringify({ route: 'script:app', accountId: 'acct', requestId: 'bbbbbbbbbbbbbbbb-STR' });
    expect(parseAccessLine(line({ r, i: '3', m: 'POST' }))).toEqual({
      method: 'POST', route: 'script:app', status: 200, ms: 12, bytesIn: 3, bytesOut: 5, requestId: 'bbbbbbbbbbbbbbbb-STR', accountId: 'acct', remote: '203.0.113.7',
    });
    // the HTTPS listener's client, vouched for to the runtime, wins over nginx's peer (Node's loopback)
    expect(parseAccessLine(line({ a: '127.0.0.1', r: JSON.stringify({ route: 'origin', requestId: 'x', remote: '198.51.100.2' }) }))?.remote).toBe('198.51.100.2');
  });

  it("labels nginx's own answers, and a request whose client left mid-body as 499", () => {
    expect(parseAccessLine(line({ s: 413, p: 'refused' }))).toMatchObject({ route: 'refused', status: 413, requestId: 'aaaaaaaaaaaaaaaa-STR' });
    expect(parseAccessLine(line({ s: 503, p: 'lost' }))).toMatchObject({ route: 'lost', status: 503 });
    expect(parseAccessLine(line({ s: 400, p: 'refused' }))).toMatchObject({ route: 'refused', status: 400 });
    expect(parseAccessLine(line({ s: 400 }))).toMatchObject({ route: 'aborted', status: 499 });
    expect(parseAccessLine(line({ s: 499 }))).toMatchObject({ route: 'aborted', status: 499 });
    expect(parseAccessLine(line({ s: 404 }))).toMatchObject({ route: 'unmatched', status: 404 });
  });

  it('skips what is not a record, and ignores a record header that is not JSON', () => {
    expect(parseAccessLine('not json')).toBeUndefined();
    expect(parseAccessLine('42')).toBeUndefined();
    expect(parseAccessLine(line({ r: '{broken' }))).toMatchObject({ route: 'unmatched', requestId: 'aaaaaaaaaaaaaaaa-STR' });
    expect(parseAccessLine(line({ r: JSON.stringify({ route: 7, accountId: { x: 1 } }) }))?.accountId).toBeUndefined();
  });
});
