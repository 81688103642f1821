/**
 * The deliberate differences between Stratus and Miniflare (the production simulator), one entry per row of
 * the design's table of contract decisions (../shared/design/ARCHITECTURE.md) plus the simulator bugs the
 * reference tells us not to copy. A step that meets one names it; its `expected` turns Miniflare's
 * normalized outcome into what Stratus must answer, so the difference itself is asserted, never skipped.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
import { expect } from 'vitest';

/** A named, expected difference. */
export interface Difference {
  name: string;
  /** Why Stratus differs (the contract decision or the simulator bug). */
  why: string;
}

const d = (name: string, why: string): Difference => ({ name, why });

/** Every deliberate difference the suite knows. */
export const DIFF = {
  delimitedPrefixes: d('delimitedPrefixes without trailing delimiter', 'contract: key foo/bar/baz with delimiter / gives "foo"; the simulator keeps the delimiter ("foo/")'),
  storageClass: d('storage class stored and validated', 'contract: Standard or InfrequentAccess, bucket default Standard; the simulator reports "" and accepts anything'),
  ssec: d('SSE-C real encryption', 'contract: objects are encrypted with the key, ssecKeyMd5 is returned, reads need the key; the simulator ignores SSE-C'),
  multipartExpiry: d('multipart expiry after 7 days', 'contract: uploads abort automatically 7 days after creation; the simulator never expires them'),
  partEtags: d('part etags are MD5 hex', 'design: part etag = MD5 hex of the part (production since 2023-06-21); the simulator returns a random token'),
  listWithoutInclude: d('list without include leaves metadata undefined', 'contract/production: metadata only when asked; the simulator answers {}'),
  customMetadataLimit: d('custom metadata limit is 8192 bytes', 'design: 8,192 bytes of UTF-8 keys plus values (production docs); the simulator allows 2,048 UTF-16-ish units'),
  rangeCrash: d('unsatisfiable zero-length range is 10039', 'reference §5.3: the simulator crashes with "Unspecified error (0)"; a faithful implementation answers InvalidRange (10039)'),
  includePageCap: d('list page size with include', 'reference §6.4: the simulator caps pages with include at 100; any cap is allowed, callers page on truncated'),
} as const;

/** True for arrays' plain-object siblings (not asymmetric matchers such as expect.stringMatching). */
function isPlain(value: any): boolean {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}

/** Deep-maps every normalized object of a Miniflare outcome. */
export function mapObjects(value: any, f: (o: any) => any): any {
  if (Array.isArray(value)) return value.map((v) => mapObjects(v, f));
  if (isPlain(value)) {
    const out: any = {};
    for (const [k, v] of Object.entries(value)) out[k] = mapObjects(v, f);
    return out.object === true ? f(out) : out;
  }
  return value;
}

/** The storage-class difference applied to every object: the simulator's "" is Stratus's `cls`. */
export function withStorageClass(value: any, cls = 'Standard'): any {
  return mapObjects(value, (o) => (o.storageClass === '' ? { ...o, storageClass: cls } : o));
}

/** Strips the trailing delimiter from every delimited prefix of a list outcome. */
export function stripDelimiter(value: any, delimiter: string): any {
  if (Array.isArray(value)) return value.map((v) => stripDelimiter(v, delimiter));
  if (isPlain(value)) {
    const out: any = {};
    for (const [k, v] of Object.entries(value)) out[k] = stripDelimiter(v, delimiter);
    if (out.list === true) out.delimitedPrefixes = out.delimitedPrefixes.map((p: string) => (p.endsWith(delimiter) ? p.slice(0, -delimiter.length) : p));
    return out;
  }
  return value;
}

/** Metadata kinds not asked for in `include` are undefined on Stratus list entries (the simulator gives {}). */
export function withoutUnrequested(value: any, kinds: ('httpMetadata' | 'customMetadata')[]): any {
  return mapObjects(value, (o) => {
    const out = { ...o };
    for (const k of kinds) out[k] = { undefined: true };
    return out;
  });
}

/** A part etag: the simulator's opaque token becomes "32 lowercase hex digits" on Stratus. */
export function md5PartEtags(value: any): any {
  if (Array.isArray(value)) return value.map(md5PartEtags);
  if (isPlain(value)) {
    const out: any = {};
    for (const [k, v] of Object.entries(value)) out[k] = md5PartEtags(v);
    if ('partNumber' in out && typeof out.etag === 'string' && Object.keys(out).length === 2) out.etag = expect.stringMatching(/^[0-9a-f]{32}$/);
    return out;
  }
  return value;
}
