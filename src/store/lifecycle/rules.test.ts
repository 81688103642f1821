import { describe, expect, it } from 'vitest';
import { LifecycleRulesError, defaultLifecycleRules, objectDecision, parseLifecycleRules, rulePrefixes, uploadAborted } from './rules.js';

const DAY = 86_400_000;

/** The problems a rule set is refused for. */
function problems(rules: unknown): string[] {
  try {
    parseLifecycleRules(rules);
  } catch (err) {
    if (err instanceof LifecycleRulesError) return err.problems;
    throw err;
  }
  return [];
}

describe('parseLifecycleRules', () => {
  it('accepts the default rule and production shapes, normalising dates', () => {
    expect(parseLifecycleRules(defaultLifecycleRules())).toEqual(defaultLifecycleRules());
    const [r] = parseLifecycleRules([{ id: 'd', enabled: true, conditions: { prefix: 'a/' }, deleteObjectsTransition: { condition: { type: 'Date', date: '2030-01-01' } } }]);
    expect(r!.deleteObjectsTransition).toEqual({ condition: { type: 'Date', date: '2030-01-01T00:00:00.000Z' } });
    expect(parseLifecycleRules([])).toEqual([]);
  });

  it('collects every problem', () => {
    expect(problems('x')).toEqual(['rules must be an array']);
    expect(problems([{ id: '', enabled: 'yes', conditions: { prefix: 3 }, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 1.5 } } }])).toEqual([
      'rules[0].id must be a string of 1 to 256 characters',
      'rules[0].enabled must be true or false',
      'rules[0].conditions must be an object with a string "prefix"',
      'rules[0].deleteObjectsTransition.condition.maxAge must be a positive whole number of seconds',
    ]);
    expect(problems([{ id: 'none', enabled: true, conditions: { prefix: '' }, storageClassTransitions: [] }])).toEqual([
      'rules[0] has no action: give deleteObjectsTransition, abortMultipartUploadsTransition or storageClassTransitions',
    ]);
    const base = { enabled: true, conditions: { prefix: '' } };
    expect(problems([{ id: 'a', ...base, abortMultipartUploadsTransition: { condition: { type: 'Date', date: '2030-01-01' } } }])).toEqual(['rules[0].abortMultipartUploadsTransition.condition.type must be "Age"']);
    expect(problems([{ id: 'a', ...base, storageClassTransitions: [{ condition: { type: 'Age', maxAge: 5 }, storageClass: 'Glacier' }] }])[0]).toBe('rules[0].storageClassTransitions[0].storageClass must be "InfrequentAccess"');
    expect(problems([
      { id: 'a', ...base, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 10 } }, storageClassTransitions: [{ condition: { type: 'Age', maxAge: 10 }, storageClass: 'InfrequentAccess' }] },
      { id: 'a', ...base, deleteObjectsTransition: { condition: { type: 'Date', date: 'soon' } } },
    ])).toEqual([
      'rules[0]: a storage class transition must come before the objects are deleted',
      'rules[1].id "a" is used by another rule',
      'rules[1].deleteObjectsTransition.condition.date must be an ISO 8601 date',
    ]);
  });
});

describe('decisions', () => {
  const rules = parseLifecycleRules([
    { id: 'logs', enabled: true, conditions: { prefix: 'logs/' }, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 30 * 86400 } },
      storageClassTransitions: [{ condition: { type: 'Age', maxAge: 10 * 86400 }, storageClass: 'InfrequentAccess' }] },
    { id: 'off', enabled: false, conditions: { prefix: '' }, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 1 } } },
    ...defaultLifecycleRules(),
  ]);
  it('deletes or transitions by prefix and age; disabled rules decide nothing', () => {
    expect(objectDecision(rules, 'logs/a', 0, 'Standard', 9 * DAY)).toBe('keep');
    expect(objectDecision(rules, 'logs/a', 0, 'Standard', 10 * DAY)).toBe('transition');
    expect(objectDecision(rules, 'logs/a', 0, 'InfrequentAccess', 10 * DAY)).toBe('keep');
    expect(objectDecision(rules, 'logs/a', 0, 'InfrequentAccess', 30 * DAY)).toBe('delete');
    expect(objectDecision(rules, 'other', 0, 'Standard', 365 * DAY)).toBe('keep');
  });
  it('aborts uploads past the age of a matching rule', () => {
    expect(uploadAborted(rules, 'x', 0, 7 * DAY - 1)).toBe(false);
    expect(uploadAborted(rules, 'x', 0, 7 * DAY)).toBe(true);
  });
  it('scans each enabled prefix once, only for what its rules act on, dropping prefixes another covers', () => {
    expect(rulePrefixes(rules, 'objects')).toEqual(['logs/']);
    expect(rulePrefixes(rules, 'uploads')).toEqual(['']);
    expect(rulePrefixes(defaultLifecycleRules(), 'objects')).toEqual([]);
    const nested = parseLifecycleRules([
      { id: 'a', enabled: true, conditions: { prefix: 'a/' }, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 1 } } },
      { id: 'b', enabled: true, conditions: { prefix: 'a/b/' }, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 1 } } },
      { id: 'c', enabled: true, conditions: { prefix: 'c/' }, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 1 } } },
    ]);
    expect(rulePrefixes(nested, 'objects')).toEqual(['a/', 'c/']);
  });
});
