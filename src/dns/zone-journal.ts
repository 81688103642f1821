/**
 * The recent versions of a zone tree as served differences, for IXFR (RFC 1995): each changeset the tree applies
 * (the change feed's and the change log's, so every node of a shared database keeps its own) is recorded as the
 * served records it removed and added, between the SOA before and after. The names a changeset can change are
 * captured before it runs (its records' names, the flattened CNAMEs, the apex); a change that reaches further
 * (settings, delegations), or is bigger than {@link MAX_JOURNAL_RECORDS}, empties the journal, and the next
 * IXFR answers with the whole zone (RFC 1995 §4 allows it). At most `versions` changesets are kept per zone
 * (`--ixfr-history`); older serials get the whole zone too. Each new entry is handed to `onRecord` (the DNS server
 * keeps it in the database, dns-server/journal-store.ts) and a loaded zone is seeded with the kept entries, so the
 * history survives a restart. Versions are numbered by the served SOA's serial: a pre-signed zone (a secondary
 * zone's copy) by its signer's, which is what its own secondaries ask IXFR from.
 */
import type { RRset } from './snapshot.js';
import type { WireRecord } from './wire/message.js';
import { TYPE } from './wire/constants.js';

/** One version step: from `from` to `to`. */
export interface JournalEntry {
  from: number;
  to: number;
  fromSoa: WireRecord;
  toSoa: WireRecord;
  deleted: WireRecord[];
  added: WireRecord[];
}

/** Above this many records changed at once, a changeset empties the journal (a full transfer is as cheap). */
export const MAX_JOURNAL_RECORDS = 20_000;

/** A comparable key of a served record. */
export function recordKey(r: WireRecord): string {
  let k = `${r.name.toLowerCase()}|${r.type}|${r.klass ?? 1}|${r.ttl}|`;
  for (const p of r.rdata) k += p instanceof Uint8Array ? Buffer.from(p).toString('base64') + ',' : `n:${p.name.toLowerCase()},`;
  return k;
}

/** The served records of rrsets, the apex SOA left out (IXFR carries SOAs itself). */
function recordsOf(rrsets: Map<number, RRset> | undefined, isApex: boolean): WireRecord[] {
  const out: WireRecord[] = [];
  if (!rrsets) return out;
  for (const set of rrsets.values()) {
    if (set.type === TYPE.SOA && isApex) continue;
    for (const r of set.records) out.push(r);
  }
  return out;
}

/** The serial of an SOA record (the first of the five numbers after its two names), or undefined. */
export function soaSerial(r: WireRecord | undefined): number | undefined {
  const last = r?.rdata[r.rdata.length - 1];
  if (!(last instanceof Uint8Array) || last.length < 20) return undefined;
  return new DataView(last.buffer, last.byteOffset + last.length - 20, 4).getUint32(0);
}

/** What a changeset replaced, per name: the served records before. */
export type BeforeState = Map<string, WireRecord[]>;

/** A zone's journal. */
export class ZoneJournal {
  private entries: JournalEntry[] = [];

  constructor(private versions: number, private readonly onRecord?: (entry: JournalEntry) => void) {}

  /** Takes versions kept elsewhere (persisted before a restart); they must end at the tree's serial. */
  seed(entries: readonly JournalEntry[]): void {
    this.entries = entries.slice(Math.max(0, entries.length - this.versions));
  }

  /** Keeps at most this many versions (0: none). */
  setVersions(versions: number): void {
    this.versions = versions;
    if (this.entries.length > versions) this.entries.splice(0, this.entries.length - versions);
  }

  /** True when changesets should be recorded. */
  get on(): boolean {
    return this.versions > 0;
  }

  /** Forgets every version (the next IXFR from before now is a full transfer). */
  reset(): void {
    this.entries = [];
  }

  /** The served records of names, before a changeset (`rrsetsOf` reads the tree). */
  static capture(names: Iterable<string>, origin: string, rrsetsOf: (name: string) => Map<number, RRset> | undefined): BeforeState {
    const out: BeforeState = new Map();
    for (const n of names) if (!out.has(n)) out.set(n, recordsOf(rrsetsOf(n), n === origin));
    return out;
  }

  /**
   * Records a changeset: the captured names' records before, `changed` (the tree's report) after. A changed name
   * that was not captured and serves records now means the changeset reached further: the journal empties.
   */
  record(before: BeforeState, changed: Iterable<string>, origin: string, rrsetsOf: (name: string) => Map<number, RRset> | undefined, from: { serial: number; soa: WireRecord }, to: { serial: number; soa: WireRecord }): void {
    const deleted: WireRecord[] = [];
    const added: WireRecord[] = [];
    const names = new Set(before.keys());
    for (const n of changed) {
      if (!names.has(n)) {
        if (recordsOf(rrsetsOf(n), n === origin).length > 0) { this.reset(); return; }
        continue;
      }
    }
    for (const n of names) {
      const old = before.get(n)!;
      const now = recordsOf(rrsetsOf(n), n === origin);
      const oldKeys = new Map(old.map((r) => [recordKey(r), r]));
      const newKeys = new Map(now.map((r) => [recordKey(r), r]));
      for (const [k, r] of oldKeys) if (!newKeys.has(k)) deleted.push(r);
      for (const [k, r] of newKeys) if (!oldKeys.has(k)) added.push(r);
      if (deleted.length + added.length > MAX_JOURNAL_RECORDS) { this.reset(); return; }
    }
    // The served serial did not move (a pre-signed zone's SOA is its signer's): nothing to record, unless the
    // records moved without it, when no kept version describes what is served any more.
    if (to.serial === from.serial) { if (deleted.length + added.length > 0) this.reset(); return; }
    const last = this.entries[this.entries.length - 1];
    if (last && last.to !== from.serial) this.entries = [];
    const entry = { from: from.serial, to: to.serial, fromSoa: from.soa, toSoa: to.soa, deleted, added };
    this.entries.push(entry);
    if (this.entries.length > this.versions) this.entries.splice(0, this.entries.length - this.versions);
    this.onRecord?.(entry);
  }

  /**
   * The condensed difference from `serial` to the newest version (RFC 1995 §5): the client's SOA, what to delete,
   * the newest SOA, what to add; undefined when the journal does not reach back to `serial`.
   */
  since(serial: number): { fromSoa: WireRecord; toSoa: WireRecord; deleted: WireRecord[]; added: WireRecord[] } | undefined {
    const start = this.entries.findIndex((e) => e.from === serial);
    if (start < 0) return undefined;
    const deleted = new Map<string, WireRecord>();
    const added = new Map<string, WireRecord>();
    for (let i = start; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      for (const r of e.deleted) {
        const k = recordKey(r);
        if (added.has(k)) added.delete(k);
        else deleted.set(k, r);
      }
      for (const r of e.added) {
        const k = recordKey(r);
        if (deleted.has(k)) deleted.delete(k);
        else added.set(k, r);
      }
    }
    const first = this.entries[start]!;
    const last = this.entries[this.entries.length - 1]!;
    return { fromSoa: first.fromSoa, toSoa: last.toSoa, deleted: [...deleted.values()], added: [...added.values()] };
  }

  /** The newest serial recorded (undefined when empty). */
  get newest(): number | undefined {
    return this.entries[this.entries.length - 1]?.to;
  }
}

type StoredRecord = [string, number, number, number, Array<string | { n: string }>];

function storeRecord(r: WireRecord): StoredRecord {
  return [r.name, r.type, r.klass ?? 1, r.ttl, r.rdata.map((p) => (p instanceof Uint8Array ? Buffer.from(p).toString('base64') : { n: p.name }))];
}

function loadRecord(s: StoredRecord): WireRecord {
  const [name, type, klass, ttl, rdata] = s;
  return { name, type, klass, ttl, rdata: rdata.map((p) => (typeof p === 'string' ? new Uint8Array(Buffer.from(p, 'base64')) : { name: p.n })) };
}

/** A journal entry as text (kept in the database so that IXFR history survives a restart). */
export function encodeJournalEntry(e: JournalEntry): string {
  return JSON.stringify({ from: e.from, to: e.to, fromSoa: storeRecord(e.fromSoa), toSoa: storeRecord(e.toSoa), deleted: e.deleted.map(storeRecord), added: e.added.map(storeRecord) });
}

/** The entry {@link encodeJournalEntry} wrote. */
export function decodeJournalEntry(text: string): JournalEntry {
  const v = JSON.parse(text) as { from: number; to: number; fromSoa: StoredRecord; toSoa: StoredRecord; deleted: StoredRecord[]; added: StoredRecord[] };
  return { from: v.from, to: v.to, fromSoa: loadRecord(v.fromSoa), toSoa: loadRecord(v.toSoa), deleted: v.deleted.map(loadRecord), added: v.added.map(loadRecord) };
}
