/**
 * No generator function made per call in `src/`: every `function*` is declared once (a top-level declaration or
 * a class's `*method`), never an expression evaluated on each call such as `(async function* () { ... })()`.
 * V8 gives each new generator function its own prototype object and map, made in the old generation, so one per
 * request left about 750 bytes per bucket read there and brought full collections (pauses of the whole thread)
 * every few seconds under load (bench/store.mjs, "full collections during ... gets"; bench/edge.mjs, bucket read).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from '../helpers/source-files.js';

/** `file:line` of each generator function expression in `text` (a `function*` that does not start its statement at the top level). */
function generatorExpressions(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => {
    if (!/function\s*\*/.test(line)) return [];
    const declared = /^(export\s+)?(async\s+)?function\s*\*\s*[A-Za-z_$]/.test(line);
    return declared ? [] : [`${file}:${i + 1}`];
  });
}

describe('generator functions in src/', () => {
  it('tells a declaration from an expression made per call', () => {
    expect(generatorExpressions('a.ts', 'export async function* chunks(x) {\nfunction* walk() {}')).toEqual([]);
    expect(generatorExpressions('a.ts', 'const it = (async function* () {\n  yield 1;\n})();')).toEqual(['a.ts:1']);
    expect(generatorExpressions('a.ts', '  return (function* () {})();')).toEqual(['a.ts:1']);
    expect(generatorExpressions('a.ts', '  function* nested() {}')).toEqual(['a.ts:1']);
  });

  it('are all declared once at the top level', () => {
    const found = sourceFiles().flatMap((f) => generatorExpressions(f, fs.readFileSync(path.join(SRC, f), 'utf8')));
    expect(found).toEqual([]);
  });
});
