/** docs/configuration.md's flags table of `stratus serve` is the rendering of the flag table (STRATUS_WRITE_DOCS=1 rewrites it). */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readmeFlagsTable } from '../../src/config/help.js';

const FILE = path.resolve(import.meta.dirname, '../../docs/configuration.md');
const BLOCK = /(<!-- flags:serve [^\n]*-->\n)([\s\S]*?)(<!-- \/flags:serve -->)/;

describe('docs/configuration.md flags table', () => {
  it('equals the rendering of src/config/flags.ts', () => {
    const readme = fs.readFileSync(FILE, 'utf8');
    expect(readme).toMatch(BLOCK);
    const expected = readme.replace(BLOCK, (_, open: string, _body: string, close: string) => `${open}${readmeFlagsTable()}\n${close}`);
    if (process.env.STRATUS_WRITE_DOCS === '1') fs.writeFileSync(FILE, expected);
    expect(readme).toBe(expected);
  });
});
