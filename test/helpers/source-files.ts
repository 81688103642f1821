/** The source files of `src/` for the checks of test/architecture/ (tests beside their files excluded). */
import fs from 'node:fs';
import path from 'node:path';

/** The project's `src/` folder. */
export const SRC = path.resolve(import.meta.dirname, '../../src');

/** Every source file of `src/` (tests excluded), relative to `src/`. */
export function sourceFiles(dir = SRC): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path.relative(SRC, p)] : [];
  });
}
