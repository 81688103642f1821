/**
 * Splitting a zone file under the import cap: the pieces together hold exactly the file's records (each
 * piece parsed alone, as the server parses it), each within the cap, with `$ORIGIN`, `$TTL` and a reused
 * owner carried over, and every line of a piece mapping back to the file's line.
 */
import { describe, expect, it } from 'vitest';
import { parseZoneFile } from '../zones/zonefile/parser.js';
import { checkZoneFile, splitZoneFile, ZoneFileLineError } from './zone-split.js';

const ZONE = 'example.com';
const records = (text: string) => parseZoneFile(text, ZONE).map((r) => `${r.name} ${r.ttl} ${r.type} ${r.rdata.join(' ')}`);

function sample(): string {
  const lines = ['; header comment', '$TTL 600'];
  for (let i = 0; i < 200; i++) {
    if (i === 80) lines.push('$ORIGIN sub', '$TTL 1h');
    if (i === 150) lines.push('$ORIGIN other.example.com.');
    lines.push(`name${i} IN A 192.0.2.${i % 250}`, `\tIN TXT "for name${i}"`, '', '; between');
  }
  lines.push('multi IN TXT ( "one"', '  "two" )');
  return lines.join('\n') + '\n';
}

describe('splitZoneFile', () => {
  it('keeps every record, each piece under the cap, with origin, TTL and reused owners carried over', () => {
    const text = sample();
    const pieces = splitZoneFile(text, ZONE, 1500);
    expect(pieces.length).toBeGreaterThan(5);
    for (const p of pieces) expect(Buffer.byteLength(p.text)).toBeLessThanOrEqual(1500);
    expect(pieces.flatMap((p) => records(p.text))).toEqual(records(text));
    expect(pieces.reduce((n, p) => n + p.records, 0)).toBe(checkZoneFile(text, ZONE));
  });

  it('maps each line of a piece to the line of the file', () => {
    const text = sample();
    const fileLines = text.split('\n');
    let mapped = 0;
    for (const p of splitZoneFile(text, ZONE, 1500)) {
      p.text.split('\n').slice(0, -1).forEach((line, i) => {
        const at = p.fileLine(i + 1);
        if (at === undefined) { expect(line).toMatch(/^\$(ORIGIN|TTL) /); return; }
        const original = fileLines[at - 1]!;
        // The same line, or an indented first line with its owner written out.
        expect(line === original || (original.startsWith('\t') && line.endsWith(` ${original.trimStart()}`)), `${line} / ${original}`).toBe(true);
        mapped++;
      });
    }
    expect(mapped).toBe(fileLines.length);
  });

  it('names the owner of a piece that starts with an indented line', () => {
    const text = '$TTL 60\nwww IN A 192.0.2.1\n\tIN TXT "a"\n\tIN TXT "b"\n';
    expect(splitZoneFile(text, ZONE, 60).map((p) => p.text)).toEqual([
      '$ORIGIN example.com.\n$TTL 60\nwww IN A 192.0.2.1\n\tIN TXT "a"\n',
      '$ORIGIN example.com.\n$TTL 60\nwww.example.com. IN TXT "b"\n\n',
    ]);
  });

  it('sends CNAME records after all the others, each with the origin and TTL it was written under', () => {
    const lines = ['$ORIGIN sub', '$TTL 1h', 'alias IN CNAME target ; cf_tags=cf-proxied:true', '\tIN TXT "x"', '$ORIGIN other.example.com.', '$TTL 5m'];
    for (let i = 0; i < 20; i++) lines.push(`target${i} IN A 192.0.2.${i}`);
    lines.push('target IN A 192.0.2.99');
    const text = lines.join('\n') + '\n';
    const pieces = splitZoneFile(text, ZONE, 200);
    expect(pieces.flatMap((p) => records(p.text)).sort()).toEqual(records(text).sort());
    const at = (what: string) => pieces.findIndex((p) => p.text.includes(what));
    expect(at('IN CNAME')).toBeGreaterThan(at('target IN A 192.0.2.99'));
    expect(at('IN CNAME')).toBe(pieces.length - 1);
    // The TXT line that followed the CNAME names its owner where it now follows something else.
    expect(pieces.map((p) => p.text).join('')).toContain('alias.sub.example.com. IN TXT "x"');
    const last = pieces.at(-1)!;
    const cnameLine = last.text.split('\n').findIndex((l) => l.includes('IN CNAME')) + 1;
    expect(last.fileLine(cnameLine)).toBe(3);
  });

  it('refuses an entry that alone is larger than the cap, naming its line', () => {
    const text = `a IN A 192.0.2.1\nb IN TXT "${'x'.repeat(200)}"\n`;
    expect(() => splitZoneFile(text, ZONE, 100)).toThrow(ZoneFileLineError);
    try {
      splitZoneFile(text, ZONE, 100);
    } catch (err) {
      expect((err as ZoneFileLineError).line).toBe(2);
    }
  });
});

describe('checkZoneFile', () => {
  it('counts the records the import counts (not SOA or apex NS) and names the first bad line', () => {
    expect(checkZoneFile('@ IN SOA a. b. 1 2 3 4 5\n@ IN NS ns1.x.\nwww IN A 192.0.2.1\n', ZONE)).toBe(1);
    expect(() => checkZoneFile('www IN A 192.0.2.1\n\nmail IN MX nope\n', ZONE)).toThrow(expect.objectContaining({ line: 3 }));
    expect(() => checkZoneFile('www.other.org. IN A 192.0.2.1\n', ZONE)).toThrow(/outside the zone/);
  });
});
