/**
 * SVCB/HTTPS SvcParams (RFC 9460 §2.1, §7): the presentation form (`alpn="h3,h2" ipv4hint=192.0.2.1 port=443`)
 * to wire bytes, keys in ascending order.
 */
import { ipv4Bytes, ipv6Bytes, base64Bytes } from './text.js';

const KEYS: Record<string, number> = {
  mandatory: 0, alpn: 1, 'no-default-alpn': 2, port: 3, ipv4hint: 4, ech: 5, ipv6hint: 6, dohpath: 7, ohttp: 8,
};

function keyNumber(key: string): number {
  const known = KEYS[key];
  if (known !== undefined) return known;
  const m = /^key(\d{1,5})$/.exec(key);
  if (!m || Number(m[1]) > 65535) throw new RangeError(`unknown SvcParamKey ${key}`);
  return Number(m[1]);
}

/** Splits the value list on unescaped commas (RFC 9460 Appendix A.1). */
function splitList(value: string): string[] {
  const items: string[] = [];
  let cur = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\' && i + 1 < value.length) { cur += value[++i]; continue; }
    if (c === ',') { items.push(cur); cur = ''; continue; }
    cur += c;
  }
  items.push(cur);
  return items;
}

/** Tokenizes `key=value` / `key="value"` / `key` items. */
export function tokenizeSvcParams(text: string): Array<[string, string | undefined]> {
  const out: Array<[string, string | undefined]> = [];
  const re = /([A-Za-z0-9-]+)(?:=(?:"((?:[^"\\]|\\.)*)"|([^\s"]*)))?/y;
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) break;
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) throw new RangeError(`cannot parse SvcParams at "${text.slice(i)}"`);
    out.push([m[1]!.toLowerCase(), m[2] ?? m[3]]);
    i = re.lastIndex;
  }
  return out;
}

function valueBytes(key: number, value: string | undefined): Uint8Array {
  const v = value ?? '';
  switch (key) {
    case 0: {
      const nums = splitList(v).map(keyNumber).sort((a, b) => a - b);
      const b = Buffer.alloc(nums.length * 2);
      nums.forEach((n, i) => b.writeUInt16BE(n, i * 2));
      return b;
    }
    case 1: {
      const parts = splitList(v).map((s) => Buffer.from(s, 'utf8'));
      return Buffer.concat(parts.flatMap((p) => [Buffer.from([p.length]), p]));
    }
    case 2: return new Uint8Array(0);
    case 3: {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535) throw new RangeError(`bad port ${v}`);
      return Uint8Array.from([n >> 8, n & 0xff]);
    }
    case 4: return Buffer.concat(splitList(v).map(ipv4Bytes));
    case 6: return Buffer.concat(splitList(v).map(ipv6Bytes));
    case 5: case 8: return base64Bytes(v);
    default: return Buffer.from(v.replace(/\\(\d{3})/g, (_, d: string) => String.fromCharCode(Number(d))), 'latin1');
  }
}

/** Encodes the SvcParams presentation text to wire bytes. */
export function encodeSvcParams(text: string): Uint8Array {
  const params = tokenizeSvcParams(text).map(([k, v]) => {
    const key = keyNumber(k);
    return { key, value: valueBytes(key, v) };
  });
  params.sort((a, b) => a.key - b.key);
  const chunks: Uint8Array[] = [];
  for (const p of params) {
    const head = Buffer.alloc(4);
    head.writeUInt16BE(p.key, 0);
    head.writeUInt16BE(p.value.length, 2);
    chunks.push(head, p.value);
  }
  return Buffer.concat(chunks);
}
