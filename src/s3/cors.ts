/**
 * Evaluating a bucket's CORS rules as S3 does
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/cors.html#cors-eval-criteria): the first rule whose
 * origins match the request's `Origin` and whose methods hold the (requested) method, and, for a preflight,
 * whose allowed headers cover every header of `Access-Control-Request-Headers`, decides. An origin or allowed
 * header may hold one `*` standing for any run of characters; origins and headers compare case-insensitively.
 * Pure functions: the S3 edge loads the rules and writes the headers.
 */
import type { BucketCorsRule } from '../store/index.js';

/** What a preflight (OPTIONS) asks for. */
export interface PreflightAsk {
  origin: string;
  method: string;
  /** Lowercase names from `Access-Control-Request-Headers`. */
  headers: string[];
}

/** `Vary` of every answer the rules decided, so caches keep answers for different origins apart. */
export const CORS_VARY = 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method';

/** True when `value` matches `pattern` (one `*` matches any run of characters), ignoring case. */
export function wildcardMatch(pattern: string, value: string): boolean {
  const p = pattern.toLowerCase();
  const v = value.toLowerCase();
  const star = p.indexOf('*');
  if (star < 0) return p === v;
  const head = p.slice(0, star);
  const tail = p.slice(star + 1);
  return v.length >= head.length + tail.length && v.startsWith(head) && v.endsWith(tail);
}

/** The names of an `Access-Control-Request-Headers` value, lowercase. */
export function requestedHeaders(value: string | null): string[] {
  return (value ?? '').split(',').map((h) => h.trim().toLowerCase()).filter((h) => h !== '');
}

const originMatches = (rule: BucketCorsRule, origin: string): boolean => rule.allowedOrigins.some((o) => wildcardMatch(o, origin));

/** The rule answering a preflight, or undefined when none allows it. */
export function preflightRule(rules: BucketCorsRule[], ask: PreflightAsk): BucketCorsRule | undefined {
  return rules.find(
    (rule) =>
      originMatches(rule, ask.origin) &&
      rule.allowedMethods.includes(ask.method) &&
      ask.headers.every((h) => rule.allowedHeaders.some((allowed) => wildcardMatch(allowed, h))),
  );
}

/** The rule applying to an actual request with `Origin`, or undefined. */
export function requestRule(rules: BucketCorsRule[], origin: string, method: string): BucketCorsRule | undefined {
  return rules.find((rule) => originMatches(rule, origin) && rule.allowedMethods.includes(method));
}

/**
 * Headers granting `origin` what `rule` allows: `*` when the rule allows any origin (no credentials), else the
 * origin itself with `Access-Control-Allow-Credentials`; the preflight's requested headers when given.
 */
export function corsHeaders(rule: BucketCorsRule, origin: string, preflightHeaders?: string[]): Record<string, string> {
  const any = rule.allowedOrigins.includes('*');
  const out: Record<string, string> = {
    'access-control-allow-origin': any ? '*' : origin,
    'access-control-allow-methods': rule.allowedMethods.join(', '),
    vary: CORS_VARY,
  };
  if (!any) out['access-control-allow-credentials'] = 'true';
  if (preflightHeaders && preflightHeaders.length > 0) out['access-control-allow-headers'] = preflightHeaders.join(', ');
  if (rule.exposeHeaders.length > 0) out['access-control-expose-headers'] = rule.exposeHeaders.join(', ');
  if (rule.maxAgeSeconds !== undefined) out['access-control-max-age'] = String(rule.maxAgeSeconds);
  return out;
}
