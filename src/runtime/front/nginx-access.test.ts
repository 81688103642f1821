/** The nginx front's access log lines into the edge's access records (nginx-access.ts). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../shared/logger.js';
import type { EdgeAccessRecord } from '../control-service.js';
import { NginxAccessLog } from './nginx-access.js';
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

describe('NginxAccessLog', () => {
  it('reads every record once and in order, whole lines only, in batches of at most 64', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-nginx-access-'));
    const file = path.join(dir, 'access.log');
    const batches: EdgeAccessRecord[][] = [];
    const log = new NginxAccessLog({ file, rotateBytes: 1 << 30, receive: (r) => batches.push(r), reopen: () => false, processes: () => [], logger: silentLogger() });
    try {
      const lines = Array.from({ length: 150 }, (_, i) => line({ id: `${String(i).padStart(16, '0')}-STR`, r: JSON.stringify({ route: 'script:ü', requestId: `req-${i}` }) }));
      // a line that is not a record among them, and the last line cut inside its two-byte "ü"
      const text = `${lines.slice(0, 100).join('\n')}\nnot a record\n${lines.slice(100).join('\n')}\n`;
      const cut = Buffer.from(text).lastIndexOf(Buffer.from('ü')) + 1;
      fs.appendFileSync(file, Buffer.from(text).subarray(0, cut));
      log.pump();
      expect(batches.flat()).toHaveLength(149);
      fs.appendFileSync(file, Buffer.from(text).subarray(cut));
      log.pump();
      log.pump();
      const records = batches.flat();
      expect(records.map((r) => r.requestId)).toEqual(Array.from({ length: 150 }, (_, i) => `req-${i}`));
      expect(records.every((r) => r.route === 'script:ü')).toBe(true);
      expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(64);
    } finally {
      log.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
