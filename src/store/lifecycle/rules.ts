/**
 * Bucket lifecycle rules in the v4 API's shape (`PUT /accounts/:id/r2/buckets/:bucket/lifecycle`): their
 * validation and what they decide for one object or upload at a given time. Pure; the sweeper
 * (`sweeper.ts`) applies the decisions. Ages are in seconds (`maxAge`), dates are ISO 8601 instants; a rule
 * applies to keys starting with `conditions.prefix`. A disabled rule decides nothing.
 */

/** An age or a date condition. */
export type LifecycleCondition = { type: 'Age'; maxAge: number } | { type: 'Date'; date: string };

/** One rule as stored and returned. */
export interface LifecycleRule {
  id: string;
  enabled: boolean;
  conditions: { prefix: string };
  deleteObjectsTransition?: { condition: LifecycleCondition };
  abortMultipartUploadsTransition?: { condition: { type: 'Age'; maxAge: number } };
  storageClassTransitions?: { condition: LifecycleCondition; storageClass: 'InfrequentAccess' }[];
  /**
   * How the S3 API received the rule (PutBucketLifecycleConfiguration: the filter's form, the configuration's
   * transition minimum size), kept so GetBucketLifecycleConfiguration answers the document that was sent.
   * Opaque here, never shown by the v4 API ({@link withoutS3Form}), dropped by a v4 PUT.
   */
  s3Form?: Record<string, string | number>;
}

/** The rule as the v4 API shows it (without its {@link LifecycleRule.s3Form}). */
export function withoutS3Form(rule: LifecycleRule): LifecycleRule {
  const { s3Form: _form, ...rest } = rule;
  return rest;
}

/** Most rules a bucket holds. */
export const MAX_LIFECYCLE_RULES = 1000;

/** Seven days: the age after which the default rule of a new bucket aborts incomplete multipart uploads. */
export const DEFAULT_ABORT_AGE_SECONDS = 7 * 24 * 60 * 60;

/** The rule every new bucket starts with, as production creates it. */
export function defaultLifecycleRules(): LifecycleRule[] {
  return [{
    id: 'Default Multipart Abort Rule',
    enabled: true,
    conditions: { prefix: '' },
    abortMultipartUploadsTransition: { condition: { type: 'Age', maxAge: DEFAULT_ABORT_AGE_SECONDS } },
  }];
}

/** A rule set that does not validate: every problem found, in order. */
export class LifecycleRulesError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
    this.name = 'LifecycleRulesError';
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function condition(v: unknown, where: string, problems: string[], ageOnly = false): LifecycleCondition | undefined {
  if (!isObject(v)) {
    problems.push(`${where}.condition must be an object`);
    return undefined;
  }
  if (v.type === 'Age') {
    const age = v.maxAge;
    if (typeof age !== 'number' || !Number.isInteger(age) || age <= 0) {
      problems.push(`${where}.condition.maxAge must be a positive whole number of seconds`);
      return undefined;
    }
    return { type: 'Age', maxAge: age };
  }
  if (v.type === 'Date' && !ageOnly) {
    const date = typeof v.date === 'string' ? Date.parse(v.date) : NaN;
    if (Number.isNaN(date)) {
      problems.push(`${where}.condition.date must be an ISO 8601 date`);
      return undefined;
    }
    return { type: 'Date', date: new Date(date).toISOString() };
  }
  problems.push(`${where}.condition.type must be ${ageOnly ? '"Age"' : '"Age" or "Date"'}`);
  return undefined;
}

/** When a condition is met by something created at `created` (epoch ms): an instant, epoch ms. */
export function dueAt(c: LifecycleCondition, created: number): number {
  return c.type === 'Age' ? created + c.maxAge * 1000 : Date.parse(c.date);
}

/** Validates a `rules` array as the v4 API receives it; returns the rules in their stored shape. */
export function parseLifecycleRules(value: unknown): LifecycleRule[] {
  const problems: string[] = [];
  if (!Array.isArray(value)) throw new LifecycleRulesError(['rules must be an array']);
  if (value.length > MAX_LIFECYCLE_RULES) problems.push(`a bucket holds at most ${MAX_LIFECYCLE_RULES} rules`);
  const ids = new Set<string>();
  const rules = value.map((raw, i): LifecycleRule => {
    const where = `rules[${i}]`;
    const r = isObject(raw) ? raw : {};
    if (!isObject(raw)) problems.push(`${where} must be an object`);
    const id = typeof r.id === 'string' ? r.id : '';
    if (id === '' || id.length > 256) problems.push(`${where}.id must be a string of 1 to 256 characters`);
    else if (ids.has(id)) problems.push(`${where}.id "${id}" is used by another rule`);
    ids.add(id);
    if (typeof r.enabled !== 'boolean') problems.push(`${where}.enabled must be true or false`);
    const prefix = isObject(r.conditions) ? r.conditions.prefix ?? '' : undefined;
    if (typeof prefix !== 'string') problems.push(`${where}.conditions must be an object with a string "prefix"`);
    const rule: LifecycleRule = { id, enabled: r.enabled === true, conditions: { prefix: typeof prefix === 'string' ? prefix : '' } };
    if (r.deleteObjectsTransition !== undefined) {
      const c = isObject(r.deleteObjectsTransition) ? condition(r.deleteObjectsTransition.condition, `${where}.deleteObjectsTransition`, problems) : undefined;
      if (!isObject(r.deleteObjectsTransition)) problems.push(`${where}.deleteObjectsTransition must be an object`);
      if (c) rule.deleteObjectsTransition = { condition: c };
    }
    if (r.abortMultipartUploadsTransition !== undefined) {
      const t = r.abortMultipartUploadsTransition;
      const c = isObject(t) ? condition(t.condition, `${where}.abortMultipartUploadsTransition`, problems, true) : undefined;
      if (!isObject(t)) problems.push(`${where}.abortMultipartUploadsTransition must be an object`);
      if (c?.type === 'Age') rule.abortMultipartUploadsTransition = { condition: c };
    }
    if (r.storageClassTransitions !== undefined) {
      if (!Array.isArray(r.storageClassTransitions)) problems.push(`${where}.storageClassTransitions must be an array`);
      const list = Array.isArray(r.storageClassTransitions) ? r.storageClassTransitions : [];
      rule.storageClassTransitions = list.flatMap((t: unknown, j) => {
        const at = `${where}.storageClassTransitions[${j}]`;
        if (!isObject(t) || t.storageClass !== 'InfrequentAccess') {
          problems.push(`${at}.storageClass must be "InfrequentAccess"`);
          return [];
        }
        const c = condition(t.condition, at, problems);
        return c ? [{ condition: c, storageClass: 'InfrequentAccess' as const }] : [];
      });
    }
    const del = rule.deleteObjectsTransition?.condition;
    for (const t of rule.storageClassTransitions ?? []) {
      if (del && t.condition.type === del.type && dueAt(t.condition, 0) >= dueAt(del, 0)) {
        problems.push(`${where}: a storage class transition must come before the objects are deleted`);
      }
    }
    const actions = [r.deleteObjectsTransition, r.abortMultipartUploadsTransition, r.storageClassTransitions].filter((a) => a !== undefined);
    if (actions.length === 0 || (Array.isArray(r.storageClassTransitions) && actions.length === 1 && r.storageClassTransitions.length === 0)) {
      problems.push(`${where} has no action: give deleteObjectsTransition, abortMultipartUploadsTransition or storageClassTransitions`);
    }
    return rule;
  });
  if (problems.length > 0) throw new LifecycleRulesError(problems);
  return rules;
}

/** What the enabled rules decide for an object uploaded at `uploaded` under `key`, at `now` (epoch ms). */
export function objectDecision(rules: readonly LifecycleRule[], key: string, uploaded: number, storageClass: string, now: number): 'delete' | 'transition' | 'keep' {
  let transition = false;
  for (const r of rules) {
    if (!r.enabled || !key.startsWith(r.conditions.prefix)) continue;
    const del = r.deleteObjectsTransition?.condition;
    if (del && dueAt(del, uploaded) <= now) return 'delete';
    if (storageClass !== 'InfrequentAccess' && (r.storageClassTransitions ?? []).some((t) => dueAt(t.condition, uploaded) <= now)) transition = true;
  }
  return transition ? 'transition' : 'keep';
}

/** Whether the enabled rules abort an upload of `key` created at `created`, at `now`. */
export function uploadAborted(rules: readonly LifecycleRule[], key: string, created: number, now: number): boolean {
  return rules.some((r) => r.enabled && key.startsWith(r.conditions.prefix) && r.abortMultipartUploadsTransition !== undefined
    && dueAt(r.abortMultipartUploadsTransition.condition, created) <= now);
}

/**
 * Key prefixes the enabled rules acting on `what` look at (objects: deletions and transitions; uploads:
 * aborts), with prefixes another one covers dropped (a rule with prefix '' covers everything).
 */
export function rulePrefixes(rules: readonly LifecycleRule[], what: 'objects' | 'uploads'): string[] {
  const acts = (r: LifecycleRule): boolean => (what === 'uploads'
    ? r.abortMultipartUploadsTransition !== undefined
    : r.deleteObjectsTransition !== undefined || (r.storageClassTransitions ?? []).length > 0);
  const prefixes = [...new Set(rules.filter((r) => r.enabled && acts(r)).map((r) => r.conditions.prefix))].sort();
  return prefixes.filter((p, i) => !prefixes.slice(0, i).some((q) => p.startsWith(q)));
}
