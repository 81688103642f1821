/**
 * Helpers for the DNS unit tests: stored-record fixtures and a presentation of encoded answers decoded by the
 * independent `dns-packet` decoder (so every lookup test also checks the wire encoder).
 */
import dnsPacket from 'dns-packet';
import type { DnsRecord, RecordType } from './record.js';
import type { SnapshotRecord } from './snapshot.js';
import { encodeMessage } from './wire/message.js';
import { Writer } from './wire/writer.js';
import type { LookupResult } from './lookup.js';

let seq = 0;

/** A stored record fixture. */
export function rec(name: string, type: RecordType, content: string, extra: Partial<DnsRecord> = {}): SnapshotRecord {
  return { id: `r${++seq}`, name, type, content, data: null, priority: null, ttl: 1, proxied: false, settings: {}, ...extra };
}

function show(a: dnsPacket.Answer): string {
  const data = (a as { data?: unknown }).data;
  let text: string;
  if (typeof data === 'string') text = data;
  else if (Buffer.isBuffer(data)) text = data.toString('hex');
  else if (Array.isArray(data)) text = data.map((d) => (Buffer.isBuffer(d) ? d.toString('utf8') : String(d))).join('|');
  else if (a.type === 'MX') text = `${(data as { preference: number }).preference} ${(data as { exchange: string }).exchange}`;
  else if (a.type === 'SOA') {
    const s = data as { mname: string; rname: string; serial: number; minimum: number };
    text = `${s.mname} ${s.rname} ${s.serial} ${s.minimum}`;
  } else text = JSON.stringify(data);
  return `${a.name} ${(a as { ttl?: number }).ttl} ${a.type} ${text}`;
}

/** The sections of a lookup result, encoded by our codec and decoded by dns-packet, one line per record. */
export function present(result: LookupResult): { rcode: string; aa: boolean; answer: string[]; authority: string[]; additional: string[] } {
  const w = new Writer();
  encodeMessage(w, {
    id: 1, qr: true, opcode: 0, aa: result.aa, rd: false, rcode: result.rcode,
    question: { name: 'q.example', type: 1, klass: 1 },
    answers: result.answer, authorities: result.authority, additionals: result.additional,
  });
  const p = dnsPacket.decode(w.result());
  return {
    rcode: (p as { rcode?: string }).rcode ?? 'NOERROR',
    aa: (p.flags! & dnsPacket.AUTHORITATIVE_ANSWER) !== 0,
    answer: (p.answers ?? []).map(show),
    authority: (p.authorities ?? []).map(show),
    additional: (p.additionals ?? []).map(show),
  };
}
