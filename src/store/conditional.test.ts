import { describe, expect, it } from 'vitest';
import { conditionHolds, parseConditional, parseEtagHeader } from './conditional.js';

const obj = { etag: 'abc', uploaded: Date.UTC(2024, 0, 1, 0, 0, 10, 500) };

describe('parseConditional (object form)', () => {
  it('rejects quoted etags and wrong types with the runtime texts', () => {
    expect(() => parseConditional({ etagMatches: '"abc"' })).toThrow(new TypeError('Conditional ETag should not be wrapped in quotes ("abc").'));
    expect(() => parseConditional({ etagMatches: 5 })).toThrow(
      "Incorrect type for the 'etagMatches' field on 'Conditional': the provided value is not of type 'string'.",
    );
    expect(() => parseConditional({ uploadedBefore: '2024' })).toThrow(TypeError);
  });
  it('accepts numbers as epoch ms and keeps a literal non-list etag', () => {
    expect(parseConditional({ uploadedBefore: 5, etagMatches: 'a, b' })).toEqual({
      secondsGranularity: false,
      uploadedBefore: 5,
      etagMatches: [{ type: 'strong', value: 'a, b' }],
    });
  });
});

describe('parseEtagHeader', () => {
  it('parses lists, weak etags and wildcards', () => {
    expect(parseEtagHeader('"a", W/"b" ,, "c"')).toEqual([
      { type: 'strong', value: 'a' },
      { type: 'weak', value: 'b' },
      { type: 'strong', value: 'c' },
    ]);
    expect(parseEtagHeader('"zzz", *')).toEqual([{ type: 'wildcard' }]);
    expect(parseEtagHeader('abc')).toEqual([]);
  });
  it('throws the runtime errors', () => {
    expect(() => parseEtagHeader('"a" "b"')).toThrow(/^Comma was expected to separate etags. Encountered a double quote character/);
    expect(() => parseEtagHeader('"a" W/"b"')).toThrow(/weak quotation character 'W'/);
    expect(() => parseEtagHeader('"a" *')).toThrow("Comma was expected to separate etags. Encountered a wildcard character '*' instead.");
    expect(() => parseEtagHeader('W"a"')).toThrow('Weak etags must start with W/ and their value must be quoted');
    expect(() => parseEtagHeader('"abc')).toThrow('Unclosed double quote for Etag');
    expect(() => parseConditional(new Headers({ 'if-match': 'abc' }))).toThrow('Invalid ETag in if-match header');
    expect(() => parseConditional(new Headers({ 'if-none-match': '""' }))).toThrow('Invalid ETag in if-none-match header');
  });
});

describe('conditionHolds', () => {
  it('object form: strict dates at ms precision', () => {
    expect(conditionHolds(parseConditional({ uploadedBefore: new Date(obj.uploaded) }), obj)).toBe(false);
    expect(conditionHolds(parseConditional({ uploadedBefore: new Date(obj.uploaded + 1) }), obj)).toBe(true);
    expect(conditionHolds(parseConditional({ uploadedAfter: new Date(obj.uploaded) }), obj)).toBe(false);
    expect(conditionHolds(parseConditional({ uploadedAfter: new Date(obj.uploaded - 1) }), obj)).toBe(true);
  });
  it('secondsGranularity truncates both sides', () => {
    expect(conditionHolds(parseConditional({ uploadedAfter: new Date(obj.uploaded - 1), secondsGranularity: true }), obj)).toBe(false);
    expect(conditionHolds(parseConditional({ uploadedBefore: new Date(obj.uploaded + 1), secondsGranularity: true }), obj)).toBe(false);
  });
  it('precedence: a passing etag excuses the failing date', () => {
    expect(conditionHolds(parseConditional({ etagMatches: 'abc', uploadedBefore: new Date(0) }), obj)).toBe(true);
    expect(conditionHolds(parseConditional({ etagMatches: 'zzz', uploadedBefore: new Date(obj.uploaded + 5000) }), obj)).toBe(false);
    expect(conditionHolds(parseConditional({ etagDoesNotMatch: 'zzz', uploadedAfter: new Date(obj.uploaded + 5000) }), obj)).toBe(true);
  });
  it('headers: weak If-None-Match matches, weak If-Match never does, seconds granularity forced', () => {
    expect(conditionHolds(parseConditional(new Headers({ 'if-none-match': 'W/"abc"' })), obj)).toBe(false);
    expect(conditionHolds(parseConditional(new Headers({ 'if-match': 'W/"abc"' })), obj)).toBe(false);
    expect(conditionHolds(parseConditional(new Headers({ 'if-match': '"x", "abc"' })), obj)).toBe(true);
    const sameSecond = new Date(obj.uploaded).toUTCString();
    expect(conditionHolds(parseConditional(new Headers({ 'if-unmodified-since': sameSecond })), obj)).toBe(false);
    expect(conditionHolds(parseConditional(new Headers({ 'if-modified-since': sameSecond })), obj)).toBe(false);
    expect(conditionHolds(parseConditional(new Headers({ 'if-modified-since': new Date(obj.uploaded - 1000).toUTCString() })), obj)).toBe(true);
  });
  it('missing object: only etagMatches and uploadedAfter fail', () => {
    expect(conditionHolds(parseConditional({ etagMatches: '*' }), null)).toBe(false);
    expect(conditionHolds(parseConditional({ uploadedAfter: new Date(0) }), null)).toBe(false);
    expect(conditionHolds(parseConditional({ etagDoesNotMatch: '*' }), null)).toBe(true);
    expect(conditionHolds(parseConditional({ uploadedBefore: new Date(0) }), null)).toBe(true);
  });
});
