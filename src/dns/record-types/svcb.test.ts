import { describe, expect, it } from 'vitest';
import { check } from './test-support.js';
import { formatSvcParams, parseSvcParams } from './svc-params.js';

describe.each(['HTTPS', 'SVCB'] as const)('%s', (type) => {
  it('derives content with canonical params', () => {
    const r = check(type, { data: { priority: 1, target: '.', value: 'ipv6hint=2001:DB8::0:1 alpn="h3,h2" ipv4hint="127.0.0.1"' } });
    expect(r.value).toEqual({
      content: '1 . alpn="h3,h2" ipv4hint="127.0.0.1" ipv6hint="2001:db8::1"',
      data: { priority: 1, target: '.', value: 'alpn="h3,h2" ipv4hint="127.0.0.1" ipv6hint="2001:db8::1"' },
      priority: null,
    });
  });
  it('reads content when data is absent', () => {
    expect(check(type, { content: '1 . alpn=h2 port=8443' }).value?.data).toEqual({ priority: 1, target: '.', value: 'alpn="h2" port="8443"' });
  });
  it('accepts alias mode without params', () => {
    expect(check(type, { data: { priority: 0, target: 'Svc.Example.net.' } }).value?.content).toBe('0 svc.example.net');
    expect(check(type, { data: { priority: 0, target: 'svc.example.net', value: 'alpn=h2' } }).codes).toEqual([9524]);
  });
  it('refuses bad params and fields', () => {
    expect(check(type, { data: { priority: 1, target: '.', value: 'alpn=h2 alpn=h3' } }).codes).toEqual([9524]);
    expect(check(type, { data: { priority: 1, target: '.', value: 'port=70000' } }).codes).toEqual([9524]);
    expect(check(type, { data: { priority: 1, target: '.', value: 'bogus=1' } }).messages[0]).toBe(`Content for ${type} record is invalid: data.value has an unknown key bogus.`);
    expect(check(type, { data: { priority: 70000, target: 'a b', value: '' } }).codes).toEqual([9512, 9512]);
  });
});

describe('parseSvcParams', () => {
  it('parses every registered key with its wire form', () => {
    const r = parseSvcParams('key65280="a\\001" ohttp dohpath="/q{?dns}" ech=AEX+ ipv6hint=::1 port=8443 no-default-alpn ipv4hint=192.0.2.1,192.0.2.2 alpn=h2,h3 mandatory=port,alpn');
    if (!r.ok) throw new Error(r.problem);
    expect(r.params.map((p) => p.name)).toEqual(['mandatory', 'alpn', 'no-default-alpn', 'port', 'ipv4hint', 'ech', 'ipv6hint', 'dohpath', 'ohttp', 'key65280']);
    const wire = Object.fromEntries(r.params.map((p) => [p.name, [...p.wire]]));
    expect(wire.mandatory).toEqual([0, 1, 0, 3]);
    expect(wire.alpn).toEqual([2, 0x68, 0x32, 2, 0x68, 0x33]);
    expect(wire['no-default-alpn']).toEqual([]);
    expect(wire.port).toEqual([0x20, 0xfb]);
    expect(wire.ipv4hint).toEqual([192, 0, 2, 1, 192, 0, 2, 2]);
    expect(wire.ech).toEqual([0x00, 0x45, 0xfe]);
    expect(wire.ipv6hint).toEqual([...new Array(15).fill(0), 1]);
    expect(wire.key65280).toEqual([0x61, 1]);
    expect(formatSvcParams(r.params)).toBe('mandatory="alpn,port" alpn="h2,h3" no-default-alpn port="8443" ipv4hint="192.0.2.1,192.0.2.2" ech="AEX+" ipv6hint="::1" dohpath="/q{?dns}" ohttp key65280="a\\001"');
  });
  it('handles escaped commas in alpn', () => {
    const r = parseSvcParams('alpn="f\\\\,oo,bar"');
    if (!r.ok) throw new Error(r.problem);
    expect(r.params[0]!.value).toEqual({ kind: 'alpn', ids: ['f,oo', 'bar'] });
    expect(formatSvcParams(r.params)).toBe('alpn="f\\\\,oo,bar"');
    const again = parseSvcParams(formatSvcParams(r.params));
    expect(again.ok && again.params[0]!.value).toEqual({ kind: 'alpn', ids: ['f,oo', 'bar'] });
  });
  it.each([
    ['mandatory=alpn', 'lists alpn as mandatory but does not set it'],
    ['mandatory=mandatory', 'mandatory may not list itself'],
    ['no-default-alpn', 'sets no-default-alpn without alpn'],
    ['alpn', 'alpn needs a value'],
    ['ipv4hint=1.1', 'ipv4hint must be a comma-separated list of IPv4 addresses'],
    ['ech=!!', 'ech must be base64'],
    ['key65535=x', 'has an unknown key key65535'],
    ['alpn="h2', 'has an unclosed quote after alpn='],
    ['ohttp=1', 'ohttp takes no value'],
  ])('refuses %j', (value, problem) => {
    expect(parseSvcParams(value)).toEqual({ ok: false, problem });
  });
});
