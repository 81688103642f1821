/**
 * Canonical forms for signing (RFC 4034 §6): owner names lowercase and uncompressed, RDATA with the embedded
 * names of the types RFC 4034 §6.2 lists lowercased (of the types Stratus serves: NS, CNAME, SOA, PTR, MX,
 * SRV, NAPTR), and the canonical order of names (§6.1) that NSEC chains follow.
 */
import { TYPE } from '../wire/constants.js';
import type { RdataPart } from '../wire/message.js';

/** ASCII-lowercases bytes from `from` on (a wire name's length octets are below 64, so they are never touched). */
function lowerFrom(b: Buffer, from: number): void {
  for (let i = from; i < b.length; i++) if (b[i]! >= 0x41 && b[i]! <= 0x5a) b[i] = b[i]! + 0x20;
}

/** The canonical RDATA of a record of `type`. */
export function canonicalRdata(type: number, parts: readonly RdataPart[]): Buffer {
  const b = Buffer.concat(parts.map((p) => (p instanceof Uint8Array ? p : wireName(p.name))));
  if (type === TYPE.SRV) lowerFrom(b, 6);
  else if (type === TYPE.NAPTR) {
    let at = 4;
    for (let i = 0; i < 3 && at < b.length; i++) at += 1 + b[at]!;
    lowerFrom(b, at);
  }
  return b;
}

/** Labels of a name (lowercase dotted), the root being ''. */
export function labelsOf(name: string): string[] {
  return name === '' ? [] : name.split('.');
}

/** The RRSIG labels field of an owner: its label count without a leading `*` (RFC 4034 §3.1.3). */
export function rrsigLabels(owner: string): number {
  const labels = labelsOf(owner);
  return labels[0] === '*' ? labels.length - 1 : labels.length;
}

/** Compares two names in canonical order (RFC 4034 §6.1): label by label from the root, octets unsigned. */
export function compareNames(a: string, b: string): number {
  const la = labelsOf(a.toLowerCase());
  const lb = labelsOf(b.toLowerCase());
  for (let i = 1; i <= Math.min(la.length, lb.length); i++) {
    const x = la[la.length - i]!;
    const y = lb[lb.length - i]!;
    if (x === y) continue;
    return Buffer.compare(Buffer.from(x, 'latin1'), Buffer.from(y, 'latin1'));
  }
  return la.length - lb.length;
}

/** The uncompressed wire form of a name, ASCII-lowercased (labels are latin1 octets: \000 and \377 allowed). */
export function wireName(name: string): Buffer {
  const parts: Buffer[] = [];
  for (const label of labelsOf(name)) {
    if (label.length === 0 || label.length > 63) throw new RangeError(`cannot write label "${label}"`);
    const b = Buffer.from(label, 'latin1');
    lowerFrom(b, 0);
    parts.push(Buffer.from([b.length]), b);
  }
  parts.push(Buffer.from([0]));
  return Buffer.concat(parts);
}
