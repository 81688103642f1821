import { describe, expect, it } from 'vitest';
import { check } from './test-support.js';
import { txtPlainText, txtStrings } from './txt.js';

const txt = (content: unknown) => check('TXT', { content });

describe('TXT', () => {
  it.each([
    ['v=spf1 -all', '"v=spf1 -all"'],
    ['"v=spf1 -all"', '"v=spf1 -all"'],
    ['"first" "second"', '"first" "second"'],
    ['  "first"   "second"  ', '"first" "second"'],
    ['""', '""'],
    ['say "hi"', '"say \\"hi\\""'],
    ['back\\slash', '"back\\\\slash"'],
    ['"say \\"hi\\""', '"say \\"hi\\""'],
    ['"a\\098c"', '"abc"'],
    ['"tab\\009x"', '"tab\\009x"'],
    ['héllo', '"héllo"'],
    [' padded \n', '"padded"'],
  ])('%j -> %s', (input, out) => {
    const r = txt(input);
    expect(r.codes).toEqual([]);
    expect(r.value).toEqual({ content: out, data: null, priority: null });
  });
  it.each(['"unbalanced', 'unbalanced"', '"a" b', '"a"b"', '"a""b"', '"bad\\99"'])('refuses %j with 9520', (input) => {
    const r = txt(input);
    expect(r.codes).toEqual([9520]);
    expect(r.messages[0]).toMatch(/^Content for TXT record is invalid: inconsistent quotes/);
  });
  it('splits strings longer than 255 bytes', () => {
    const long = 'x'.repeat(600);
    expect(txt(long).value?.content).toBe(`"${'x'.repeat(255)}" "${'x'.repeat(255)}" "${'x'.repeat(90)}"`);
    expect(txt(`"${long}" "y"`).value?.content).toBe(`"${'x'.repeat(255)}" "${'x'.repeat(255)}" "${'x'.repeat(90)}" "y"`);
  });
  it('splits multibyte text between characters', () => {
    const r = txt('é'.repeat(200));
    const parts = r.value!.content.split(' ');
    expect(parts).toEqual([`"${'é'.repeat(127)}"`, `"${'é'.repeat(73)}"`]);
  });
  it('limits the text to 2048 characters', () => {
    expect(txt('x'.repeat(2048)).codes).toEqual([]);
    const r = txt('x'.repeat(2049));
    expect(r.codes).toEqual([9521]);
    expect(r.messages[0]).toContain('2049');
  });
  it('requires string content', () => {
    expect(txt(undefined).codes).toEqual([9510]);
    expect(txt('').codes).toEqual([9510]);
    expect(txt(['a']).codes).toEqual([9525]);
  });
});

describe('stored TXT helpers', () => {
  it('gives the plain text and the strings of stored content', () => {
    expect(txtPlainText('"v=spf1 " "-all"')).toBe('v=spf1 -all');
    expect(txtPlainText('"say \\"hi\\""')).toBe('say "hi"');
    const parsed = txtStrings('"ab" "\\255"');
    expect(parsed.ok && parsed.strings.map((b) => [...b])).toEqual([[0x61, 0x62], [255]]);
  });
});
