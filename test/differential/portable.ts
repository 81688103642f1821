/**
 * Functions that run on both sides of the differential suite: inside Miniflare's workerd (as source text,
 * via `Function.prototype.toString`) and in Node against Stratus. They must stay self-contained: no imports,
 * no closures, no named inner functions.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */

/** Deterministic bytes: `n` bytes derived from `seed`. */
export const bytes = (n: number, seed: number): Uint8Array => {
  const out = new Uint8Array(n);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
};

/**
 * Turns a binding result into plain JSON that can be compared field by field. Values that differ by nature
 * between two stores (version, uploaded, uploadId, cursor) are reduced to their type and shape.
 */
export const normalize = (value: any): any => {
  const walk = (v: any, depth: number): any => {
    if (depth > 8) return '<deep>';
    if (v === null) return null;
    if (v === undefined) return { undefined: true };
    if (typeof v !== 'object' && typeof v !== 'function') return v;
    if (v instanceof Date) return { date: 'Date' };
    if (v instanceof ArrayBuffer) return { arrayBuffer: [...new Uint8Array(v)].map((x) => x.toString(16).padStart(2, '0')).join('') };
    if (ArrayBuffer.isView(v)) return { view: v.constructor.name, byteLength: v.byteLength };
    if (typeof Headers !== 'undefined' && v instanceof Headers) return { headers: [...v].sort() };
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    if ('etag' in v && 'version' in v && 'key' in v && 'checksums' in v) {
      const http = v.httpMetadata;
      return {
        object: true,
        key: v.key,
        size: v.size,
        etag: v.etag,
        httpEtag: v.httpEtag,
        version: typeof v.version === 'string' && v.version.length > 0 ? 'string' : v.version,
        uploaded: v.uploaded instanceof Date && Math.abs(v.uploaded.getTime() - Date.now()) < 8 * 86_400_000 ? 'recent Date' : String(v.uploaded),
        checksums: v.checksums && typeof v.checksums.toJSON === 'function' ? v.checksums.toJSON() : walk(v.checksums, depth + 1),
        httpMetadata: http === undefined ? { undefined: true } : {
          ...http,
          ...(http.cacheExpiry !== undefined ? { cacheExpiry: http.cacheExpiry instanceof Date ? http.cacheExpiry.getTime() : String(http.cacheExpiry) } : {}),
        },
        customMetadata: v.customMetadata === undefined ? { undefined: true } : { ...v.customMetadata },
        range: v.range === undefined ? { undefined: true } : { ...v.range },
        storageClass: v.storageClass,
        ssecKeyMd5: v.ssecKeyMd5 === undefined ? { undefined: true } : 'string',
        hasBody: 'body' in v && v.body !== undefined,
      };
    }
    if ('objects' in v && 'truncated' in v) {
      return {
        list: true,
        objects: v.objects.map((o: any) => walk(o, depth + 1)),
        truncated: v.truncated,
        cursor: 'cursor' in v ? typeof v.cursor : 'absent',
        delimitedPrefixes: v.delimitedPrefixes,
      };
    }
    if ('uploadId' in v && typeof v.uploadPart === 'function') {
      return { upload: true, key: v.key, uploadId: typeof v.uploadId === 'string' && v.uploadId.length > 0 ? 'string' : v.uploadId };
    }
    const out: Record<string, any> = {};
    for (const k of Object.keys(v)) out[k] = walk(v[k], depth + 1);
    return out;
  };
  return walk(value, 0);
};

/** An error as both sides report it. */
export const describeError = (e: any): any => ({ error: { name: e && e.name, message: e && e.message } });
