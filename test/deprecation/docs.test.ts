/** docs/deprecations.md is generated from the schedule; this keeps them in sync (STRATUS_WRITE_DOCS=1 rewrites it). */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderDeprecationsDoc } from '../../src/deprecation/render-docs.js';
import { SCHEDULE } from '../../src/deprecation/schedule.js';

const FILE = path.resolve(__dirname, '../../docs/deprecations.md');

describe('docs/deprecations.md', () => {
  it('equals the rendering of the schedule', () => {
    const expected = renderDeprecationsDoc();
    if (process.env.STRATUS_WRITE_DOCS === '1') fs.writeFileSync(FILE, expected);
    expect(fs.readFileSync(FILE, 'utf8')).toBe(expected);
  });

  it('lists every row once, newest first', () => {
    const ids = SCHEDULE.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(SCHEDULE.length).toBe(26);
    const dates = SCHEDULE.map((e) => e.date);
    expect([...dates].sort().reverse()).toEqual(dates);
    const doc = renderDeprecationsDoc();
    for (const id of ids) expect(doc).toContain(`\`${id}\``);
  });
});
