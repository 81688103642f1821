/**
 * Read preconditions of GetObject/HeadObject and of a copy's source, evaluated as HTTP (RFC 7232 §6) and S3
 * do: If-Match, else If-Unmodified-Since; then If-None-Match, else If-Modified-Since; dates compared at
 * one-second granularity with Last-Modified <= date meaning "not modified since".
 */

/** Outcome of the checks: proceed, 304 Not Modified or 412 Precondition Failed. */
export type PreconditionOutcome = 'ok' | 304 | 412;

function etagList(header: string): string[] {
  return header.split(',').map((t) => t.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1')).filter(Boolean);
}

function seconds(value: string): number | undefined {
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}

/** Evaluates the precondition headers (`prefix` is `x-amz-copy-source-` for a copy's source). */
export function evaluateReadPreconditions(headers: Headers, obj: { etag: string; uploaded: Date }, prefix = ''): PreconditionOutcome {
  const lastModified = Math.floor(obj.uploaded.getTime() / 1000);
  const ifMatch = headers.get(`${prefix}if-match`);
  if (ifMatch !== null) {
    const tags = etagList(ifMatch);
    if (!tags.includes('*') && !tags.includes(obj.etag)) return 412;
  } else {
    const since = headers.get(`${prefix}if-unmodified-since`);
    const at = since === null ? undefined : seconds(since);
    if (at !== undefined && lastModified > at) return 412;
  }
  const ifNoneMatch = headers.get(`${prefix}if-none-match`);
  if (ifNoneMatch !== null) {
    const tags = etagList(ifNoneMatch);
    if (tags.includes('*') || tags.includes(obj.etag)) return prefix ? 412 : 304;
  } else {
    const since = headers.get(`${prefix}if-modified-since`);
    const at = since === null ? undefined : seconds(since);
    if (at !== undefined && lastModified <= at) return prefix ? 412 : 304;
  }
  return 'ok';
}
