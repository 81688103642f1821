/** Packing a name's records into one string and back (packed-records.ts): exact for every field form. */
import { describe, expect, it } from 'vitest';
import { packRecord, unpackRecords, withRecord, withoutRecord } from './packed-records.js';
import type { SnapshotRecord } from './snapshot.js';

const NAME = 'www.example.com';

function rec(extra: Partial<SnapshotRecord>): SnapshotRecord {
  return { id: '0123456789abcdef0123456789abcdef', name: NAME, type: 'A', content: '192.0.2.1', data: null, priority: null, ttl: 1, proxied: false, settings: {}, ...extra };
}

const SAMPLES: SnapshotRecord[] = [
  rec({}),
  rec({ id: 'r1', ttl: 86400, proxied: true, settings: { ipv4_only: true } }),
  rec({ id: 'ABCDEF0123456789ABCDEF0123456789', type: 'AAAA', content: '2001:db8::1' }),
  rec({ type: 'MX', content: 'mail.example.com', priority: 0 }),
  rec({ type: 'SRV', content: '5 443 sip.example.com', priority: 65535, data: { priority: 65535, weight: 5, port: 443, target: 'sip.example.com' } }),
  rec({ type: 'TXT', content: `"${'x'.repeat(200)}" "caf\u00e9 \u{1f600}"` }),
  rec({ type: 'TXT', content: `"${'y'.repeat(20_000)}"` }),
  rec({ type: 'CAA', content: '0 issue "ca.example"', data: { flags: 0, tag: 'issue', value: 'ca.example' } }),
  rec({ type: 'CNAME', content: 'target.example.com', settings: { flatten_cname: false } }),
  rec({ type: 'NS', content: 'ns.example.net', ttl: 0xffffffff }),
];

describe('packed records', () => {
  it('unpack gives back exactly the records packed, one by one and together', () => {
    for (const r of SAMPLES) expect(unpackRecords(packRecord(r), NAME)).toEqual([r]);
    const all = SAMPLES.reduce((packed, r) => withRecord(packed, r), '');
    expect(unpackRecords(all, NAME)).toEqual(SAMPLES);
  });

  it('a packed string holds only bytes (one char each, below 256)', () => {
    for (const r of SAMPLES) expect([...packRecord(r)].every((c) => c.charCodeAt(0) < 256)).toBe(true);
  });

  it('removes the record with an id wherever it is, and nothing when none has it', () => {
    const ids = ['a1', 'b2', '0123456789abcdef0123456789abcdef', 'c3'];
    const records = ids.map((id, i) => rec({ id, content: `192.0.2.${i}` }));
    const all = records.reduce((packed, r) => withRecord(packed, r), '');
    for (const [i, id] of ids.entries()) {
      expect(unpackRecords(withoutRecord(all, id), NAME)).toEqual(records.filter((_, j) => j !== i));
    }
    expect(withoutRecord(all, 'missing')).toBe(all);
    expect(withoutRecord('', 'a1')).toBe('');
  });

  it('keeps an A record\'s strict dotted quad as four bytes, and any other A content as its text, exactly', () => {
    const quads = ['0.0.0.0', '255.255.255.255', '198.51.100.7', '10.0.0.1'];
    const texts = ['010.0.0.1', '1.1', '256.0.0.1', '1.2.3.4.5', ' 1.2.3.4', 'not an address', '', '1.2.3.04'];
    for (const content of [...quads, ...texts]) {
      const r = rec({ id: `id-${content}`, content });
      expect(unpackRecords(packRecord(r), NAME)).toEqual([r]);
      const between = withRecord(withRecord(packRecord(rec({ id: 'x' })), r), rec({ id: 'y', type: 'TXT', content: '"t"' }));
      expect(unpackRecords(withoutRecord(between, 'x'), NAME).map((u) => u.content)).toEqual([content, '"t"']);
    }
    // Four bytes instead of the text and its length: 8 (`0.0.0.0`) to 12 bytes fewer.
    expect(packRecord(rec({ content: '198.51.100.7' })).length).toBe(packRecord(rec({ type: 'TXT', content: '' })).length + 3);
    // The same text in another type stays text.
    expect(unpackRecords(packRecord(rec({ type: 'TXT', content: '10.0.0.1' })), NAME)[0]!.content).toBe('10.0.0.1');
  });

  it('keeps a type the API does not know (a row read from the database), for the zone to leave out', () => {
    const odd = rec({ id: 'odd', type: 'SPF' as never, content: '"v=spf1 -all"' });
    expect(unpackRecords(withRecord(packRecord(SAMPLES[0]!), odd), NAME)).toEqual([SAMPLES[0], odd]);
    expect(unpackRecords(withoutRecord(withRecord(packRecord(odd), SAMPLES[0]!), 'odd'), NAME)).toEqual([SAMPLES[0]]);
  });
});
