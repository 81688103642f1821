/**
 * CNAME flattening inside a {@link ZoneTree}: a flattened CNAME answers the A/AAAA of its chain's final
 * in-zone target, resolved in the unflattened ("draft") view of the zone, exactly as `buildSnapshot` does.
 * The resolution also reports every name it looked at (each link, the ancestors checked for a wildcard and
 * the wildcard names), so that a change at any of them re-flattens the names depending on it.
 */
import { TYPE } from './wire/constants.js';
import type { RdataPart } from './wire/message.js';
import { inZone, type RRset, type ZoneNode } from './snapshot.js';

/** The draft (unflattened) view a resolution reads. */
export interface DraftView {
  origin: string;
  /** The node at `name`, if it exists. */
  node(name: string): ZoneNode | undefined;
  /** The node's rrset of `type` before flattening. */
  draft(node: ZoneNode, type: number): RRset | undefined;
}

/** The names a resolution read: their rrsets (`content`), or only whether they exist (`exists`). */
export interface Reads {
  content: Set<string>;
  exists: Set<string>;
}

function parent(name: string): string {
  const dot = name.indexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1);
}

/** The node answering for `name` in the draft (exact, or the wildcard at the closest encloser); notes names read. */
function nodeFor(view: DraftView, name: string, seen: Reads): ZoneNode | undefined {
  seen.content.add(name);
  const exact = view.node(name);
  if (exact) return exact;
  let n = name;
  while (n !== view.origin && n !== '') {
    n = parent(n);
    seen.exists.add(n);
    if (view.node(n)) {
      seen.content.add(`*.${n}`);
      return view.node(`*.${n}`);
    }
  }
  return undefined;
}

/** Follows CNAMEs from `name` in the draft; the RDATA of the final `type` rrset (if any). */
export function resolveInDraft(view: DraftView, name: string, type: number, seen: Reads): RdataPart[][] {
  let current = name;
  for (let hop = 0; hop < 16; hop++) {
    const node = nodeFor(view, current, seen);
    if (!node) return [];
    const set = view.draft(node, type);
    if (set) return set.records.map((r) => r.rdata as RdataPart[]);
    const cname = view.draft(node, TYPE.CNAME);
    if (!cname) return [];
    const target = (cname.records[0]!.rdata[0] as { name: string }).name;
    if (!inZone(target, view.origin)) return [];
    current = target;
  }
  return [];
}

/**
 * The served rrsets of a flattened name: the draft without its CNAME, with the resolved A/AAAA at the CNAME's
 * TTL; undefined when the draft is served as is (nothing resolved below the apex: a target outside the zone).
 */
export function flattened(view: DraftView, name: string, draft: Map<number, RRset>, ttl: number, seen: Reads): Map<number, RRset> | undefined {
  const byType = new Map<number, RdataPart[][]>();
  for (const type of [TYPE.A, TYPE.AAAA]) {
    const res = resolveInDraft(view, name, type, seen);
    if (res.length) byType.set(type, res);
  }
  if (byType.size === 0 && name !== view.origin) return undefined;
  const out = new Map(draft);
  out.delete(TYPE.CNAME);
  for (const [type, rdatas] of byType) out.set(type, { type, ttl, records: rdatas.map((rdata) => ({ name, type, ttl, rdata })) });
  return out;
}
