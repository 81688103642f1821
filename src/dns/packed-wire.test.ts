/** A plain name's wire RDATA read straight from its packed records (packed-wire.ts), whatever form its ids take. */
import { describe, expect, it } from 'vitest';
import { packRecord, withRecord } from './packed-records.js';
import { readPlainRecords } from './packed-wire.js';
import type { SnapshotRecord } from './snapshot.js';
import { TYPE } from './wire/constants.js';

function rec(extra: Partial<SnapshotRecord>): SnapshotRecord {
  return { id: '0123456789abcdef0123456789abcdef', name: 'h.example.com', type: 'A', content: '192.0.2.1', data: null, priority: null, ttl: 300, proxied: false, settings: {}, ...extra };
}

/** The records read, as [type, ttl, rdata hex]. */
function read(records: SnapshotRecord[]): Array<[number, number, string]> | undefined {
  const plain = readPlainRecords(records.slice(1).reduce((p, r) => withRecord(p, r), packRecord(records[0]!)));
  if (!plain) return undefined;
  return Array.from({ length: plain.count }, (_, i) => [plain.types[i]!, plain.ttls[i]!, plain.rdata.subarray(plain.starts[i]!, plain.ends[i]!).toString('hex')]);
}

describe('plain records in wire form', () => {
  it('reads A, AAAA and TXT records whose ids are hex, or any other text', () => {
    for (const id of ['0123456789abcdef0123456789abcdef', 'r1', 'an-imported-id-of-some-length']) {
      expect(read([rec({ id })])).toEqual([[TYPE.A, 300, 'c0000201']]);
      expect(read([rec({ id, type: 'AAAA', content: '2001:db8::1' })])).toEqual([[TYPE.AAAA, 300, '20010db8000000000000000000000001']]);
      expect(read([rec({ id, type: 'TXT', content: '"v=1"' })])).toEqual([[TYPE.TXT, 300, '03763d31']]);
    }
  });

  it('gives an rrset the lowest TTL of its records, and leaves names that are not plain to the general path', () => {
    expect(read([rec({ id: 'a', ttl: 600 }), rec({ id: 'b', content: '192.0.2.2', ttl: 120 })])).toEqual([[TYPE.A, 120, 'c0000201'], [TYPE.A, 120, 'c0000202']]);
    expect(read([rec({ id: 'a', proxied: true })])).toBeUndefined();
    // A content that is not a strict dotted quad is kept as text (packed-records.ts) and derived as before.
    expect(read([rec({ id: 'a', content: '010.0.0.1' })])).toBeUndefined();
    expect(read([rec({ id: 'a', type: 'CNAME', content: 'x.example.com' })])).toBeUndefined();
  });
});
