/** The progress display: a bar redrawn in place on a terminal, one line per change otherwise. */
import { describe, expect, it } from 'vitest';
import { Progress } from './progress.js';

function stream(isTTY: boolean): NodeJS.WriteStream & { text: string } {
  const s = { isTTY, text: '', write(chunk: string) { s.text += chunk; return true; } };
  return s as unknown as NodeJS.WriteStream & { text: string };
}

describe('Progress', () => {
  it('redraws one bar on a terminal and ends it with a newline', () => {
    const out = stream(true);
    const p = new Progress(out, 'importing example.com', 200);
    p.update(0);
    p.update(100);
    p.update(200);
    p.finish();
    expect(out.text.split('\r').filter(Boolean)).toEqual([
      `importing example.com [${'-'.repeat(30)}]   0%  0/200 records`,
      `importing example.com [${'#'.repeat(15)}${'-'.repeat(15)}]  50%  100/200 records`,
      `importing example.com [${'#'.repeat(30)}] 100%  200/200 records\n`,
    ]);
  });

  it('prints plain lines elsewhere, once per change', () => {
    const out = stream(false);
    const p = new Progress(out, 'importing example.com', 3);
    p.update(1);
    p.update(1);
    p.update(3);
    p.finish();
    expect(out.text).toBe('importing example.com: 1/3 records (33%)\nimporting example.com: 3/3 records (100%)\n');
  });
});
