import { describe, expect, it } from 'vitest';
import { ErrorCollector } from '../shared/errors.js';
import { checkHostname, fromZoneFileName, normalizeRecordName, type RecordWarning } from './names.js';

function norm(raw: unknown, type = 'A') {
  const errors = new ErrorCollector();
  const warnings: RecordWarning[] = [];
  const name = normalizeRecordName(raw, 'example.com', type, errors, warnings);
  return { name, codes: errors.errors.map((e) => e.code), messages: errors.errors.map((e) => e.message), warnings };
}

describe('normalizeRecordName', () => {
  it.each([
    ['@', 'example.com'],
    ['example.com', 'example.com'],
    ['example.com.', 'example.com'],
    ['www', 'www.example.com'],
    ['www.example.com', 'www.example.com'],
    ['www.example.com.', 'www.example.com'],
    ['WWW.Example.COM', 'www.example.com'],
    ['a.b', 'a.b.example.com'],
    ['*', '*.example.com'],
    ['*.dev', '*.dev.example.com'],
    ['bücher', 'xn--bcher-kva.example.com'],
    ['  www  ', 'www.example.com'],
  ])('%j -> %s', (raw, out) => {
    const r = norm(raw);
    expect(r.codes).toEqual([]);
    expect(r.name).toBe(out);
    expect(r.warnings).toEqual([]);
  });
  it('treats a relative name that does not end in the zone as relative', () => {
    expect(norm('www.other.org').name).toBe('www.other.org.example.com');
  });
  it('refuses absolute names outside the zone', () => {
    const r = norm('www.other.org.');
    expect(r.codes).toEqual([9501]);
    expect(r.messages[0]).toContain('www.other.org is not in zone example.com');
    expect(norm('badexample.com.').codes).toEqual([9501]);
  });
  it.each(['', '   ', 'a..b', '.', 'a b', null, 42])('refuses %j with 9000', (raw) => {
    const r = norm(raw);
    expect(r.name).toBeUndefined();
    expect(r.codes).toEqual([9000]);
    expect(r.messages[0]).toBe('DNS name is invalid.');
  });
  it('applies the host name rule to A, AAAA and CNAME labels only', () => {
    expect(norm('1www', 'A').codes).toEqual([9504]);
    expect(norm('-www', 'AAAA').codes).toEqual([9504]);
    expect(norm('www-', 'CNAME').codes).toEqual([9504]);
    expect(norm('w$w', 'A').codes).toEqual([9504]);
    expect(norm('1www', 'TXT').name).toBe('1www.example.com');
    expect(norm('4.3.2.1', 'PTR').name).toBe('4.3.2.1.example.com');
    expect(norm('w$w', 'TXT').codes).toEqual([9000]);
  });
  it('passes underscores with a warning for host-rule types', () => {
    const r = norm('_acme-challenge', 'CNAME');
    expect(r.name).toBe('_acme-challenge.example.com');
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]!.code).toBe(9506);
    expect(norm('_acme-challenge', 'TXT').warnings).toEqual([]);
  });
  it('allows * only as the leftmost label', () => {
    expect(norm('a.*', 'A').codes).toEqual([9505]);
    expect(norm('a.*', 'TXT').codes).toEqual([9505]);
    expect(norm('a*', 'TXT').codes).toEqual([9000]);
  });
  it('enforces label and name lengths', () => {
    expect(norm('a'.repeat(63)).name).toBe(`${'a'.repeat(63)}.example.com`);
    expect(norm('a'.repeat(64)).codes).toEqual([9503]);
    const long = Array.from({ length: 5 }, () => 'a'.repeat(50)).join('.');
    expect(norm(long, 'TXT').codes).toEqual([9502]);
  });
});

describe('checkHostname', () => {
  it('normalizes', () => {
    expect(checkHostname('Mail.Example.NET.')).toEqual({ ok: true, name: 'mail.example.net' });
    expect(checkHostname('münchen.de')).toEqual({ ok: true, name: 'xn--mnchen-3ya.de' });
    expect(checkHostname('_sip._tcp.example.com')).toEqual({ ok: true, name: '_sip._tcp.example.com' });
    expect(checkHostname('.', { allowRoot: true })).toEqual({ ok: true, name: '.' });
  });
  it.each(['', '.', 'a..b', 'a b.c', '-a.com', 'a-.com', 'a$.com', `${'a'.repeat(64)}.com`, 7])('refuses %j', (v) => {
    expect(checkHostname(v).ok).toBe(false);
  });
});

describe('fromZoneFileName', () => {
  it('resolves against the origin', () => {
    expect(fromZoneFileName('@', 'example.com.')).toBe('example.com');
    expect(fromZoneFileName('mail', 'example.com.')).toBe('mail.example.com');
    expect(fromZoneFileName('mail.example.net.', 'example.com')).toBe('mail.example.net');
    expect(fromZoneFileName('.', 'example.com')).toBe('.');
  });
});
