/**
 * SvcParams of SVCB and HTTPS records (RFC 9460 §2.1, §7, and RFC 9461 dohpath, RFC 9540 ohttp) in
 * presentation form: `key` or `key=value` separated by spaces, values optionally quoted. Parsed into typed
 * values plus the wire form of each value (so the DNS encoder only writes key, length, bytes) and printed
 * canonically: keys ascending, every value quoted (`alpn="h3,h2" ipv4hint="192.0.2.1"`).
 */
import { formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from '../ip.js';
import { unescapeBytes, utf8 } from './charstring.js';

/** Registered key names by number. */
export const SVC_KEY_NAMES: Record<number, string> = {
  0: 'mandatory', 1: 'alpn', 2: 'no-default-alpn', 3: 'port', 4: 'ipv4hint', 5: 'ech', 6: 'ipv6hint', 7: 'dohpath', 8: 'ohttp',
};

/** The typed value of one SvcParam. */
export type SvcValue =
  | { kind: 'mandatory'; keys: number[] }
  | { kind: 'alpn'; ids: string[] }
  | { kind: 'flag' }
  | { kind: 'port'; port: number }
  | { kind: 'ipv4hint' | 'ipv6hint'; addresses: string[] }
  | { kind: 'ech'; base64: string }
  | { kind: 'dohpath'; path: string }
  | { kind: 'opaque'; bytes: Uint8Array };

/** One parsed SvcParam. */
export interface SvcParam {
  key: number;
  /** Presentation name (`alpn`, `key65280`). */
  name: string;
  value: SvcValue;
  /** SvcParamValue in wire format (RFC 9460 §2.2), without key and length. */
  wire: Uint8Array;
}

/** Result of {@link parseSvcParams}. */
export type SvcParse = { ok: true; params: SvcParam[] } | { ok: false; problem: string };

/** The number of a key name, or undefined. */
export function svcKeyNumber(name: string): number | undefined {
  const lower = name.toLowerCase();
  for (const [n, k] of Object.entries(SVC_KEY_NAMES)) if (k === lower) return Number(n);
  const m = /^key(0|[1-9][0-9]{0,4})$/.exec(lower);
  if (!m || Number(m[1]) > 65534) return undefined;
  return Number(m[1]);
}

/** The presentation name of a key number. */
export function svcKeyName(key: number): string {
  return SVC_KEY_NAMES[key] ?? `key${key}`;
}

/**
 * A value-list (RFC 9460 Appendix A.1): the raw value is decoded as a char-string first, then split at
 * commas, where `\,` and `\\` in the decoded text stand for a literal comma and backslash.
 */
function splitList(raw: string): string[] | undefined {
  const bytes = unescapeBytes(raw);
  if (!bytes) return undefined;
  const text = new TextDecoder().decode(bytes);
  const items: string[] = [];
  let cur = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && i + 1 < text.length) { cur += text[i + 1]; i++; continue; }
    if (text[i] === ',') { items.push(cur); cur = ''; continue; }
    cur += text[i];
  }
  items.push(cur);
  return items.some((item) => item === '') ? undefined : items;
}

const u16 = (n: number) => Uint8Array.of(n >> 8, n & 0xff);
const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
};

/** Builds the typed value and wire bytes of one param; a problem text when the value is invalid. */
function buildParam(key: number, raw: string | undefined): SvcParam | string {
  const name = svcKeyName(key);
  const need = (): string | undefined => (raw === undefined || raw === '' ? `${name} needs a value` : undefined);
  switch (key) {
    case 0: {
      const missing = need(); if (missing) return missing;
      const keys = splitList(raw!)?.map(svcKeyNumber);
      if (!keys || keys.some((k) => k === undefined)) return `mandatory lists an unknown key`;
      const sorted = [...new Set(keys as number[])].sort((a, b) => a - b);
      if (sorted.length !== keys.length) return 'mandatory lists a key twice';
      if (sorted.includes(0)) return 'mandatory may not list itself';
      return { key, name, value: { kind: 'mandatory', keys: sorted }, wire: concat(sorted.map(u16)) };
    }
    case 1: {
      const missing = need(); if (missing) return missing;
      const ids = splitList(raw!);
      if (!ids || ids.some((id) => utf8(id).length > 255)) return 'alpn needs a comma-separated list of non-empty protocol ids of at most 255 bytes';
      return { key, name, value: { kind: 'alpn', ids }, wire: concat(ids.flatMap((id) => [Uint8Array.of(utf8(id).length), utf8(id)])) };
    }
    case 2: case 8:
      if (raw !== undefined && raw !== '') return `${name} takes no value`;
      return { key, name, value: { kind: 'flag' }, wire: new Uint8Array(0) };
    case 3: {
      if (raw === undefined || !/^(0|[1-9][0-9]{0,4})$/.test(raw) || Number(raw) > 65535) return 'port must be an integer from 0 to 65535';
      return { key, name, value: { kind: 'port', port: Number(raw) }, wire: u16(Number(raw)) };
    }
    case 4: case 6: {
      const missing = need(); if (missing) return missing;
      const parse = key === 4 ? parseIPv4 : parseIPv6;
      const bytes = raw!.split(',').map((a) => parse(a.trim()));
      if (bytes.some((b) => b === undefined)) return `${name} must be a comma-separated list of IPv${key === 4 ? 4 : 6} addresses`;
      const fmt = key === 4 ? formatIPv4 : formatIPv6;
      return { key, name, value: { kind: name as 'ipv4hint', addresses: bytes.map((b) => fmt(b!)) }, wire: concat(bytes as Uint8Array[]) };
    }
    case 5: {
      if (raw === undefined || !/^[A-Za-z0-9+/]+={0,2}$/.test(raw) || raw.length % 4 !== 0) return 'ech must be base64';
      return { key, name, value: { kind: 'ech', base64: raw }, wire: Uint8Array.from(Buffer.from(raw, 'base64')) };
    }
    case 7: {
      const missing = need(); if (missing) return missing;
      const bytes = unescapeBytes(raw!);
      if (!bytes) return 'dohpath has an invalid escape';
      return { key, name, value: { kind: 'dohpath', path: new TextDecoder().decode(bytes) }, wire: bytes };
    }
    default: {
      const bytes = raw === undefined ? new Uint8Array(0) : unescapeBytes(raw);
      if (!bytes) return `${name} has an invalid escape`;
      return { key, name, value: { kind: 'opaque', bytes }, wire: bytes };
    }
  }
}

/** Parses a presentation SvcParams string (may be empty); keys sorted ascending, each at most once. */
export function parseSvcParams(value: string): SvcParse {
  const params: SvcParam[] = [];
  const text = value.trim();
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) break;
    const km = /^[A-Za-z0-9-]+/.exec(text.slice(i));
    if (!km) return { ok: false, problem: `has an invalid key at position ${i + 1}` };
    const key = svcKeyNumber(km[0]);
    if (key === undefined) return { ok: false, problem: `has an unknown key ${km[0]}` };
    i += km[0].length;
    let raw: string | undefined;
    if (text[i] === '=') {
      i++;
      if (text[i] === '"') {
        let j = i + 1;
        while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
        if (j >= text.length) return { ok: false, problem: `has an unclosed quote after ${km[0]}=` };
        raw = text.slice(i + 1, j);
        i = j + 1;
      } else {
        let j = i;
        while (j < text.length && !/\s/.test(text[j]!)) j += text[j] === '\\' ? 2 : 1;
        raw = text.slice(i, j);
        i = j;
      }
    }
    if (i < text.length && !/\s/.test(text[i]!)) return { ok: false, problem: `has text right after ${km[0]}` };
    if (params.some((p) => p.key === key)) return { ok: false, problem: `lists ${svcKeyName(key)} twice` };
    const p = buildParam(key, raw);
    if (typeof p === 'string') return { ok: false, problem: p };
    params.push(p);
  }
  params.sort((a, b) => a.key - b.key);
  const keys = new Set(params.map((p) => p.key));
  const mandatory = params.find((p) => p.key === 0);
  if (mandatory && mandatory.value.kind === 'mandatory') {
    const missing = mandatory.value.keys.filter((k) => !keys.has(k));
    if (missing.length > 0) return { ok: false, problem: `lists ${missing.map(svcKeyName).join(', ')} as mandatory but does not set it` };
  }
  if (keys.has(2) && !keys.has(1)) return { ok: false, problem: 'sets no-default-alpn without alpn' };
  return { ok: true, params };
}

/** Escapes text for inside a quoted value. */
function esc(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c < 0x20 || c === 0x7f) out += `\\${String(c).padStart(3, '0')}`;
    else out += ch;
  }
  return out;
}

/** The canonical presentation of parsed params. */
export function formatSvcParams(params: readonly SvcParam[]): string {
  return params.map((p) => {
    const v = p.value;
    switch (v.kind) {
      case 'flag': return p.name;
      case 'mandatory': return `${p.name}="${v.keys.map(svcKeyName).join(',')}"`;
      case 'alpn': return `${p.name}="${esc(v.ids.map((id) => id.replace(/[\\,]/g, (c) => `\\${c}`)).join(','))}"`;
      case 'port': return `${p.name}="${v.port}"`;
      case 'ipv4hint': case 'ipv6hint': return `${p.name}="${v.addresses.join(',')}"`;
      case 'ech': return `${p.name}="${v.base64}"`;
      case 'dohpath': return `${p.name}="${esc(v.path)}"`;
      case 'opaque': {
        if (v.bytes.length === 0) return p.name;
        let s = '';
        for (const b of v.bytes) s += b >= 0x20 && b < 0x7f ? esc(String.fromCharCode(b)) : `\\${String(b).padStart(3, '0')}`;
        return `${p.name}="${s}"`;
      }
    }
  }).join(' ');
}

/**
 * The wire form of SvcParams (RFC 9460 §2.2: key, length and value, keys ascending) from their presentation
 * text, by the same parser the API validates with, so what is served is what was accepted. RangeError when
 * the text does not parse.
 */
export function svcParamsWire(text: string): Uint8Array {
  const parsed = parseSvcParams(text);
  if (!parsed.ok) throw new RangeError(`SvcParams ${parsed.problem}`);
  const params = [...parsed.params].sort((a, b) => a.key - b.key);
  const out = new Uint8Array(params.reduce((n, p) => n + 4 + p.wire.length, 0));
  let o = 0;
  for (const p of params) {
    if (p.wire.length > 65535) throw new RangeError(`SvcParam ${p.name} is ${p.wire.length} bytes; at most 65535`);
    out[o] = p.key >> 8; out[o + 1] = p.key & 0xff; out[o + 2] = p.wire.length >> 8; out[o + 3] = p.wire.length & 0xff;
    out.set(p.wire, o + 4);
    o += 4 + p.wire.length;
  }
  return out;
}
