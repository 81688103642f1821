/**
 * The `LifecycleConfiguration` document of PutBucketLifecycleConfiguration and GetBucketLifecycleConfiguration
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketLifecycleConfiguration.html) as the bucket's
 * lifecycle rules, the same rules the v4 route (`…/r2/buckets/:bucket/lifecycle`) keeps and the store's
 * sweeper applies. What those rules can say is what is accepted, as production's S3 API accepts it
 * (its docs configure prefixes, expiration by days or date, `STANDARD_IA` transitions and aborts of incomplete
 * multipart uploads over S3):
 *
 *  - a rule applies to a key prefix: `<Filter><Prefix>`, an empty `<Filter/>`, no filter, the legacy rule-level
 *    `<Prefix>`, or `<Filter><And>` holding a `<Prefix>` (and `<ObjectSizeGreaterThan>0`, which Terraform's
 *    `and` block sends when no size is given). Tags and other object sizes are `NotImplemented` (501);
 *  - `Expiration` by `Days` (whole days) or `Date` (midnight UTC); `ExpiredObjectDeleteMarker` and the
 *    `NoncurrentVersion…` actions are `NotImplemented` (buckets are not versioned);
 *  - `Transition` to `STANDARD_IA` (InfrequentAccess) by `Days` or `Date`; other classes are
 *    `InvalidStorageClass`;
 *  - `AbortIncompleteMultipartUpload` by `DaysAfterInitiation`.
 *
 * Anything outside S3's schema is `MalformedXML`; a bad value `InvalidArgument`; then the v4 rules' own
 * checks apply (`parseLifecycleRules`: unique ids, transitions before deletion, at most 1000 rules).
 * Each stored rule remembers the form it came in (`s3Form`) so the document read back is the one sent: the
 * Terraform AWS provider waits until the rules it reads equal those it wrote, field by field.
 */
import { randomBytes } from 'node:crypto';
import { LifecycleRulesError, MAX_LIFECYCLE_RULES, parseLifecycleRules, type LifecycleCondition, type LifecycleRule } from '../store/index.js';
import { S3Error, s3Error } from './errors.js';
import { childrenNamed, parseXml, xmlDocument, XmlSyntaxError, type XmlElement, type XmlNode } from './xml.js';

const DAY_SECONDS = 86_400;
const MAX_ID_LENGTH = 255;
/** `x-amz-transition-default-minimum-object-size` values S3 defines (AWS's default first). */
export const MINIMUM_OBJECT_SIZES = ['all_storage_classes_128K', 'varies_by_storage_class'] as const;
const RULE_ELEMENTS = new Set(['ID', 'Filter', 'Prefix', 'Status', 'Expiration', 'Transition', 'AbortIncompleteMultipartUpload', 'NoncurrentVersionExpiration', 'NoncurrentVersionTransition']);

const malformed = (): S3Error => s3Error('MalformedXML', 400);
const invalid = (message: string): S3Error => new S3Error('InvalidArgument', message, 400);
const notImplemented = (what: string): S3Error =>
  new S3Error('NotImplemented', `${what} is not implemented: lifecycle rules here filter by key prefix and act on current objects and multipart uploads.`, 501);

/** The one child named `name` (undefined when absent); MalformedXML when repeated. */
function one(el: XmlElement, name: string): XmlElement | undefined {
  const found = childrenNamed(el, name);
  if (found.length > 1) throw malformed();
  return found[0];
}

/** Refuses children other than `names`. */
function only(el: XmlElement, names: readonly string[]): void {
  if (el.children.some((c) => !names.includes(c.name))) throw malformed();
}

/** A positive whole number of days as seconds; InvalidArgument otherwise. */
function days(el: XmlElement, what: string): number {
  const text = el.text.trim();
  if (!/^\d{1,9}$/.test(text) || Number(text) === 0) throw invalid(`'${el.name}' for ${what} action must be a positive integer`);
  return Number(text) * DAY_SECONDS;
}

/** A `Date` (midnight UTC, as S3 requires) as an ISO instant. */
function midnight(el: XmlElement): string {
  const t = Date.parse(el.text.trim());
  if (Number.isNaN(t)) throw invalid("'Date' must be an ISO 8601 date");
  if (t % (DAY_SECONDS * 1000) !== 0) throw invalid("'Date' must be at midnight GMT");
  return new Date(t).toISOString();
}

/** `Days` or `Date` of an Expiration or a Transition (exactly one). */
function when(el: XmlElement, what: string): LifecycleCondition {
  const d = one(el, 'Days');
  const date = one(el, 'Date');
  if ((d === undefined) === (date === undefined)) throw malformed();
  return d ? { type: 'Age', maxAge: days(d, what) } : { type: 'Date', date: midnight(date!) };
}

/** The rule's prefix and the form it was given in. */
function filterOf(rule: XmlElement): { prefix: string; form: Record<string, string | number> } {
  const filter = one(rule, 'Filter');
  const legacy = one(rule, 'Prefix');
  if (filter && legacy) throw malformed();
  if (legacy) return { prefix: legacy.text, form: { filter: 'rule-prefix' } };
  if (!filter) return { prefix: '', form: { filter: 'none' } };
  only(filter, ['Prefix', 'And', 'Tag', 'ObjectSizeGreaterThan', 'ObjectSizeLessThan']);
  if (filter.children.length > 1) throw malformed();
  const [child] = filter.children;
  if (!child) return { prefix: '', form: { filter: 'empty' } };
  if (child.name === 'Prefix') return { prefix: child.text, form: { filter: 'prefix' } };
  if (child.name !== 'And') throw notImplemented(`A lifecycle filter on ${child.name === 'Tag' ? 'object tags' : 'object size'}`);
  only(child, ['Prefix', 'Tag', 'ObjectSizeGreaterThan', 'ObjectSizeLessThan']);
  if (childrenNamed(child, 'Tag').length > 0) throw notImplemented('A lifecycle filter on object tags');
  const larger = one(child, 'ObjectSizeGreaterThan');
  if (one(child, 'ObjectSizeLessThan') || (larger && larger.text.trim() !== '0')) throw notImplemented('A lifecycle filter on object size');
  return { prefix: one(child, 'Prefix')?.text ?? '', form: { filter: 'and', ...(larger ? { andSizeGreaterThan: 0 } : {}) } };
}

/** One `Rule` in the v4 API's shape (validated afterwards by `parseLifecycleRules`). */
function ruleOf(el: XmlElement, minimumObjectSize: string | undefined): LifecycleRule {
  only(el, [...RULE_ELEMENTS]);
  for (const name of ['NoncurrentVersionExpiration', 'NoncurrentVersionTransition']) if (one(el, name)) throw notImplemented(`${name} (object versions)`);
  const id = one(el, 'ID')?.text ?? randomBytes(12).toString('base64url');
  if (id.length > MAX_ID_LENGTH) throw invalid(`ID length should not exceed allowed limit of ${MAX_ID_LENGTH}`);
  const status = one(el, 'Status')?.text.trim();
  if (status !== 'Enabled' && status !== 'Disabled') throw malformed();
  const { prefix, form } = filterOf(el);
  const rule: LifecycleRule = { id, enabled: status === 'Enabled', conditions: { prefix } };
  const expiration = one(el, 'Expiration');
  if (expiration) {
    only(expiration, ['Days', 'Date', 'ExpiredObjectDeleteMarker']);
    if (one(expiration, 'ExpiredObjectDeleteMarker')) throw notImplemented('ExpiredObjectDeleteMarker (object versions)');
    rule.deleteObjectsTransition = { condition: when(expiration, 'Expiration') };
  }
  const transitions = childrenNamed(el, 'Transition').map((t) => {
    only(t, ['Days', 'Date', 'StorageClass']);
    const cls = one(t, 'StorageClass')?.text.trim();
    if (cls === undefined) throw malformed();
    if (cls !== 'STANDARD_IA') throw new S3Error('InvalidStorageClass', `The storage class you specified is not valid: lifecycle rules here move objects to STANDARD_IA only, not ${cls}.`, 400);
    return { condition: when(t, 'Transition'), storageClass: 'InfrequentAccess' as const };
  });
  if (transitions.length > 0) rule.storageClassTransitions = transitions;
  const abort = one(el, 'AbortIncompleteMultipartUpload');
  if (abort) {
    only(abort, ['DaysAfterInitiation']);
    const after = one(abort, 'DaysAfterInitiation');
    if (!after) throw malformed();
    rule.abortMultipartUploadsTransition = { condition: { type: 'Age', maxAge: days(after, 'AbortIncompleteMultipartUpload') } };
  }
  if (!expiration && transitions.length === 0 && !abort) throw new S3Error('InvalidRequest', 'At least one action needs to be specified in a rule', 400);
  rule.s3Form = { ...form, ...(minimumObjectSize !== undefined ? { minimumObjectSize } : {}) };
  return rule;
}

/**
 * The rules of a PutBucketLifecycleConfiguration body, with `x-amz-transition-default-minimum-object-size`
 * (when sent) kept to be answered back; S3Error when the document is refused.
 */
export function parseLifecycleConfiguration(text: string, minimumObjectSize: string | undefined): LifecycleRule[] {
  if (minimumObjectSize !== undefined && !(MINIMUM_OBJECT_SIZES as readonly string[]).includes(minimumObjectSize)) {
    throw new S3Error('InvalidArgument', `Invalid x-amz-transition-default-minimum-object-size: ${minimumObjectSize}`, 400, { ArgumentName: 'x-amz-transition-default-minimum-object-size' });
  }
  let doc: XmlElement;
  try {
    doc = parseXml(text);
  } catch (err) {
    if (err instanceof XmlSyntaxError) throw malformed();
    throw err;
  }
  if (doc.name !== 'LifecycleConfiguration' || doc.children.length === 0) throw malformed();
  only(doc, ['Rule']);
  if (doc.children.length > MAX_LIFECYCLE_RULES) throw invalid(`A lifecycle configuration holds at most ${MAX_LIFECYCLE_RULES} rules`);
  const rules = doc.children.map((el) => ruleOf(el, minimumObjectSize));
  const ids = rules.map((r) => r.id);
  if (new Set(ids).size !== ids.length) throw invalid('Rule ID must be unique. Found same ID for more than one rule');
  let valid: LifecycleRule[];
  try {
    valid = parseLifecycleRules(rules);
  } catch (err) {
    if (err instanceof LifecycleRulesError) throw invalid(`Invalid lifecycle rules: ${err.message}`);
    throw err;
  }
  return valid.map((r, i) => ({ ...r, s3Form: rules[i]!.s3Form! }));
}

/** `Days` (whole days, rounded up: a rule set over v4 may count seconds) or `Date` of a condition. */
function whenXml(c: LifecycleCondition): XmlNode {
  return c.type === 'Age' ? { Days: Math.max(1, Math.ceil(c.maxAge / DAY_SECONDS)) } : { Date: c.date.replace('.000Z', 'Z') };
}

/** The filter part of a rule, in the form it was sent in (a rule set over v4: `<Filter><Prefix>`). */
function filterXml(rule: LifecycleRule): XmlNode {
  const prefix = rule.conditions.prefix;
  const form = rule.s3Form ?? {};
  if (form.filter === 'rule-prefix') return { Prefix: prefix };
  if (prefix === '' && form.filter === 'none') return {};
  if (prefix === '' && form.filter === 'empty') return { Filter: {} };
  if (form.filter === 'and') return { Filter: { And: { Prefix: prefix, ObjectSizeGreaterThan: form.andSizeGreaterThan } } };
  return { Filter: { Prefix: prefix } };
}

/** One stored rule as a `Rule` element. */
function ruleXml(rule: LifecycleRule): XmlNode {
  const del = rule.deleteObjectsTransition?.condition;
  const abort = rule.abortMultipartUploadsTransition?.condition;
  return {
    ID: rule.id,
    ...filterXml(rule),
    Status: rule.enabled ? 'Enabled' : 'Disabled',
    Expiration: del && whenXml(del),
    Transition: (rule.storageClassTransitions ?? []).map((t) => ({ ...whenXml(t.condition), StorageClass: 'STANDARD_IA' })),
    AbortIncompleteMultipartUpload: abort && { DaysAfterInitiation: Math.max(1, Math.ceil(abort.maxAge / DAY_SECONDS)) },
  };
}

/** The GetBucketLifecycleConfiguration document of stored rules, and its minimum object size header. */
export function lifecycleConfigurationXml(rules: LifecycleRule[]): { body: string; minimumObjectSize: string } {
  const sent = rules.map((r) => r.s3Form?.minimumObjectSize).find((v) => typeof v === 'string');
  return {
    body: xmlDocument('LifecycleConfiguration', { Rule: rules.map(ruleXml) }, true),
    minimumObjectSize: typeof sent === 'string' ? sent : MINIMUM_OBJECT_SIZES[0],
  };
}
