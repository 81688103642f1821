import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors.js';
import { parseTtl, parseZoneFile } from './parser.js';

function fails(text: string): AppError {
  try {
    parseZoneFile(text, 'example.com');
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a failure');
}

describe('parseZoneFile', () => {
  it('reads owners, @, relative names, blank owners, optional TTL and class in either order', () => {
    const recs = parseZoneFile([
      '@ 300 IN A 192.0.2.1',
      'www IN 600 A 192.0.2.2',
      '    AAAA 2001:db8::1',
      'mail.example.com. MX 10 mx.example.net.',
    ].join('\n'), 'example.com.');
    expect(recs.map((r) => [r.line, r.name, r.ttl, r.type, r.rdata])).toEqual([
      [1, 'example.com', 300, 'A', ['192.0.2.1']],
      [2, 'www.example.com', 600, 'A', ['192.0.2.2']],
      [3, 'www.example.com', null, 'AAAA', ['2001:db8::1']],
      [4, 'mail.example.com', null, 'MX', ['10', 'mx.example.net.']],
    ]);
  });

  it('applies $ORIGIN (relative and absolute) and $TTL with units', () => {
    const recs = parseZoneFile([
      '$TTL 1h30m',
      '$ORIGIN sub',
      'a A 192.0.2.1',
      '$ORIGIN other.example.com.',
      'b 60 A 192.0.2.2',
      'c CNAME d',
    ].join('\n'), 'example.com');
    expect(recs.map((r) => [r.name, r.ttl, r.origin])).toEqual([
      ['a.sub.example.com', 5400, 'sub.example.com'],
      ['b.other.example.com', 60, 'other.example.com'],
      ['c.other.example.com', 5400, 'other.example.com'],
    ]);
  });

  it('joins parenthesized lines, keeps quoted strings with escapes and takes the last line comment', () => {
    const recs = parseZoneFile([
      'txt TXT ( "a \\"quoted\\" ; not a comment"   ; inner comment',
      '   "second" ) ; hello cf_tags=team:dns',
      'next A 192.0.2.9',
    ].join('\n'), 'example.com');
    expect(recs[0]!.rdata).toEqual(['"a \\"quoted\\" ; not a comment"', '"second"']);
    expect(recs[0]!.comment).toBe('hello');
    expect(recs[0]!.tags).toEqual(['team:dns']);
    expect(recs[1]!.line).toBe(3);
  });

  it('reads cf_tags attributes', () => {
    const [rec] = parseZoneFile('www 1 IN A 192.0.2.1 ; my web cf_tags=cf-proxied:true,env:"a,b"', 'example.com');
    expect(rec).toMatchObject({ comment: 'my web', proxied: true, tags: ['env:a,b'] });
  });

  it('expands $GENERATE with modifiers', () => {
    const recs = parseZoneFile('$GENERATE 1-3 host-$ A 192.0.2.$\n$GENERATE 10-12/2 ${0,3,x}.ptr PTR h${-9}.example.com.', 'example.com');
    expect(recs.map((r) => [r.name, r.rdata.join(' ')])).toEqual([
      ['host-1.example.com', '192.0.2.1'], ['host-2.example.com', '192.0.2.2'], ['host-3.example.com', '192.0.2.3'],
      ['00a.ptr.example.com', 'h1.example.com.'], ['00c.ptr.example.com', 'h3.example.com.'],
    ]);
  });

  it('refuses $INCLUDE with its own code and message', () => {
    const err = fails('www A 192.0.2.1\n$INCLUDE /etc/passwd');
    expect(err.code).toBe(1211);
    expect(err.message).toBe('Zone file line 2: $INCLUDE directive not allowed');
  });

  it.each([
    ['www A 192.0.2.1\n  CH A 192.0.2.1', 2, /class CH/],
    ['www A 192.0.2.1\nx IN DNAME y.', 2, /unsupported record type "DNAME"/],
    ['  A 192.0.2.1', 1, /no owner name/],
    ['a TXT "open', 1, /not closed/],
    ['a TXT ( "x"\n\nb A 1.2.3.4', 1, /"\(" is not closed/],
    ['a A 1.2.3.4 )', 1, /without a matching/],
    ['$FOO bar', 1, /unknown directive/],
    ['$TTL soon', 1, /\$TTL takes one TTL/],
    ['$GENERATE 5-1 a A 1.2.3.$', 1, /stop is below start/],
    ['a 300', 1, /no type/],
    ['a A 1.2.3.4 ; cf_tags=cf-proxied:maybe', 1, /cf-proxied must be true or false/],
  ])('fails clearly on %j', (text, line, pattern) => {
    const err = fails(text);
    expect(err.code).toBe(1210);
    expect(err.message.startsWith(`Zone file line ${line}: `)).toBe(true);
    expect(err.message).toMatch(pattern);
  });

  it('parses TTL units', () => {
    expect(parseTtl('1w')).toBe(604800);
    expect(parseTtl('2D3h')).toBe(2 * 86400 + 3 * 3600);
    expect(parseTtl('A')).toBeUndefined();
  });
});
