/** docs/README.md, the start-here page, links every document in docs/; the README stays under 150 lines and links it. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the start-here page', () => {
  it('links every document of docs/', () => {
    const index = fs.readFileSync(path.join(ROOT, 'docs/README.md'), 'utf8');
    const linked = new Set([...index.matchAll(/\]\(([^)#]+\.md)\)/g)].map((m) => m[1]));
    const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'README.md');
    expect(docs.filter((d) => !linked.has(d))).toEqual([]);
  });

  it('is linked from a README of under 150 lines that keeps `npm test` as its second command', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThan(150);
    expect(readme).toContain('](docs/README.md)');
    expect(readme).toMatch(/```sh\nnpm ci && npx stratus serve[^\n]*\nnpm test {2}/);
  });
});
