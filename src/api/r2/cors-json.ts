/**
 * Bucket CORS rules in the v4 API's JSON (`{rules: [{allowed: {origins, methods, headers}, exposeHeaders,
 * maxAgeSeconds, id}]}`), validated with the rules the S3 API's PutBucketCors keeps (s3/cors-config.ts): 1 to
 * 100 rules, each with at least one origin and method; methods among GET, PUT, HEAD, POST, DELETE; at most one
 * `*` in an origin or an allowed header; none in an exposed header; a whole-number max age; ids up to 255
 * characters. Both APIs store the same rules, so either reads what the other wrote.
 */
import type { BucketCorsRule } from '../../store/index.js';
import { CORS_METHODS } from '../../s3/cors-config.js';
import { invalidArgument } from './errors.js';

const MAX_RULES = 100;
const wildcards = (s: string): number => s.split('*').length - 1;

function strings(v: unknown, where: string, problems: string[]): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
    problems.push(`${where} must be an array of strings`);
    return [];
  }
  return v as string[];
}

/** The rules of a PUT body; 10040 naming every problem. */
export function parseCorsJson(body: Record<string, unknown>): BucketCorsRule[] {
  const raw = body.rules;
  if (!Array.isArray(raw)) throw invalidArgument('Send "rules", an array of CORS rules');
  const problems: string[] = [];
  if (raw.length > MAX_RULES) problems.push(`The number of CORS rules should not exceed allowed limit of ${MAX_RULES} rules.`);
  const rules = raw.map((r: unknown, i): BucketCorsRule => {
    const where = `rules[${i}]`;
    const rule = typeof r === 'object' && r !== null ? (r as Record<string, unknown>) : {};
    const allowed = typeof rule.allowed === 'object' && rule.allowed !== null ? (rule.allowed as Record<string, unknown>) : {};
    const origins = strings(allowed.origins, `${where}.allowed.origins`, problems);
    const methods = strings(allowed.methods, `${where}.allowed.methods`, problems);
    const headers = strings(allowed.headers, `${where}.allowed.headers`, problems);
    const exposed = strings(rule.exposeHeaders, `${where}.exposeHeaders`, problems);
    if (origins.length === 0 || methods.length === 0) problems.push(`${where}.allowed needs at least one origin and one method`);
    for (const m of methods) if (!CORS_METHODS.has(m)) problems.push(`Found unsupported HTTP method in CORS config. Unsupported method is ${m}`);
    for (const o of origins) if (wildcards(o) > 1) problems.push(`AllowedOrigin "${o}" can not have more than one wildcard.`);
    for (const h of headers) if (wildcards(h) > 1) problems.push(`AllowedHeader "${h}" can not have more than one wildcard.`);
    for (const h of exposed) if (h.includes('*')) problems.push(`ExposeHeader "${h}" contains wildcard. We currently do not support wildcard for ExposeHeader.`);
    if (rule.id !== undefined && (typeof rule.id !== 'string' || rule.id.length > 255)) problems.push(`${where}.id must be a string of at most 255 characters`);
    const maxAge = rule.maxAgeSeconds;
    if (maxAge !== undefined && (typeof maxAge !== 'number' || !Number.isInteger(maxAge) || maxAge < 0 || maxAge > 999_999_999)) {
      problems.push(`${where}.maxAgeSeconds must be a whole number of seconds`);
    }
    return {
      ...(typeof rule.id === 'string' ? { id: rule.id } : {}),
      allowedOrigins: origins, allowedMethods: methods, allowedHeaders: headers, exposeHeaders: exposed,
      ...(typeof maxAge === 'number' ? { maxAgeSeconds: maxAge } : {}),
    };
  });
  if (problems.length > 0) throw invalidArgument(problems.join('; '));
  return rules;
}

/** The stored rules in the v4 shape. */
export function corsJson(rules: BucketCorsRule[]): Record<string, unknown>[] {
  return rules.map((r) => ({
    ...(r.id !== undefined ? { id: r.id } : {}),
    allowed: { origins: r.allowedOrigins, methods: r.allowedMethods, ...(r.allowedHeaders.length ? { headers: r.allowedHeaders } : {}) },
    ...(r.exposeHeaders.length ? { exposeHeaders: r.exposeHeaders } : {}),
    ...(r.maxAgeSeconds !== undefined ? { maxAgeSeconds: r.maxAgeSeconds } : {}),
  }));
}
