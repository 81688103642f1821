import { describe, expect, it } from 'vitest';
import { parseCharacterStrings } from './text.js';
import { seededRandom } from '../../../test/helpers/seeded-random.js';

/** The byte-by-byte reading the one-pass path of plain texts must agree with (escapes, UTF-8, long strings). */
function reference(text: string): number[][] {
  const out: number[][] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
    if (i >= text.length) break;
    const quoted = text[i] === '"';
    if (quoted) i++;
    const bytes: number[] = [];
    while (i < text.length) {
      const c = text[i]!;
      if (quoted ? c === '"' : c === ' ' || c === '\t') break;
      if (c === '\\' && i + 1 < text.length) {
        const d = text.slice(i + 1, i + 4);
        if (/^\d{3}$/.test(d)) { bytes.push(Number(d) & 0xff); i += 4; continue; }
        i++;
        bytes.push(...Buffer.from(text[i]!, 'utf8'));
        i++;
        continue;
      }
      bytes.push(...Buffer.from(c, 'utf8'));
      i++;
    }
    if (quoted) i++;
    for (let k = 0; k < bytes.length || (k === 0 && bytes.length === 0); k += 255) out.push(bytes.slice(k, k + 255));
  }
  return out;
}

describe('parseCharacterStrings', () => {
  it('reads plain, quoted, escaped, UTF-8 and long texts as the byte-by-byte reading does', () => {
    const random = seededRandom(1995);
    const pieces = ['a', 'v=1', ' ', '\t', '"', '\\"', '\\065', '\\\\', 'é', 'x'.repeat(120), 'y'.repeat(300), '""', ';'];
    for (let n = 0; n < 20_000; n++) {
      let text = '';
      const len = Math.floor(random() * 8);
      for (let k = 0; k < len; k++) text += pieces[Math.floor(random() * pieces.length)];
      expect(parseCharacterStrings(text).map((b) => [...b]), JSON.stringify(text)).toEqual(reference(text));
    }
  });
});
