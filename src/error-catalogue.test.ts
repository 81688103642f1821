import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCatalogue, renderErrorsMarkdown } from './error-catalogue.js';
import { DEPRECATION_CODES } from './deprecation/codes.js';
import { ZONEFILE_CODES } from './zones/zonefile/errors.js';
import { WORKERS_CODES } from './scripts/errors.js';

const root = path.resolve(import.meta.dirname, '..');
const docPath = path.join(root, 'docs/errors.md');

/** Every `.ts` file (not tests) below a folder. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return sources(p);
    return d.name.endsWith('.ts') && !d.name.endsWith('.test.ts') ? [p] : [];
  });
}

describe('error catalogue', () => {
  if (process.env.UPDATE_DOCS) fs.writeFileSync(docPath, renderErrorsMarkdown());

  it('docs/errors.md is rendered from the catalogue', () => {
    expect(fs.readFileSync(docPath, 'utf8')).toBe(renderErrorsMarkdown());
  });

  it('no two owners use one code (the catalogue keeps the first entry of a code, which would hide the other)', async () => {
    const { CERT_CODES } = await import('./certs/codes.js');
    const others = new Set<number>([...Object.values(ZONEFILE_CODES), ...Object.values(DEPRECATION_CODES), ...Object.values(WORKERS_CODES)].filter((c) => typeof c === 'number'));
    expect(Object.values(CERT_CODES).filter((c) => others.has(c))).toEqual([]);
    const catalogued = new Set(errorCatalogue().map((c) => c.code));
    expect(Object.values(CERT_CODES).filter((c) => !catalogued.has(c))).toEqual([]);
  });

  it('has one entry per code', () => {
    const codes = errorCatalogue().map((c) => c.code);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('lists every code thrown by the API, accounts and zones sources and every lifecycle, zone-file and batch code', () => {
    const known = new Set(errorCatalogue().map((c) => c.code));
    const thrown = new Set<number>();
    for (const dir of ['src/api', 'src/zones', 'src/accounts', 'src/scripts']) {
      for (const file of sources(path.join(root, dir))) {
        const text = fs.readFileSync(file, 'utf8');
        for (const m of text.matchAll(/(?:new AppError\(|\.add\(|code: )(\d{4,5})\b/g)) thrown.add(Number(m[1]));
      }
    }
    for (const code of [...Object.values(DEPRECATION_CODES), ...Object.values(ZONEFILE_CODES), ...Object.values(WORKERS_CODES)]) thrown.add(code);
    expect(thrown.size).toBeGreaterThan(20);
    expect([...thrown].filter((c) => !known.has(c))).toEqual([]);
  });
});
