import { describe, expect, it } from 'vitest';
import { checkNameConflicts, checkProxiedCname, inZone } from './record-rules.js';
import type { RecordDraft } from './record-body.js';

const Z = 'example.com';
const draft = (type: string, name: string, content: string, extra: Partial<RecordDraft> = {}): RecordDraft => ({
  name, type: type as RecordDraft['type'], content, data: null, priority: null, ttl: 1, proxied: false, comment: null, tags: [], settings: {}, ...extra,
});
const stored = (type: string, content: string, priority: number | null = null) => ({ id: `${type}-${content}`, type, content, priority });
const code = (fn: () => unknown): number | undefined => { try { fn(); return undefined; } catch (e) { return (e as { code: number }).code; } };

describe('checkNameConflicts', () => {
  it('a CNAME shares its name with nothing', () => {
    expect(code(() => checkNameConflicts(draft('CNAME', `w.${Z}`, 't.net'), [stored('A', '192.0.2.1')], Z))).toBe(81053);
    expect(code(() => checkNameConflicts(draft('CNAME', `w.${Z}`, 't.net'), [stored('TXT', '"x"')], Z))).toBe(81053);
    expect(code(() => checkNameConflicts(draft('A', `w.${Z}`, '192.0.2.1'), [stored('CNAME', 't.net')], Z))).toBe(81054);
    expect(code(() => checkNameConflicts(draft('CNAME', `w.${Z}`, 't.net'), [], Z))).toBeUndefined();
  });

  it('NS below the apex delegates its name; at the apex NS lives with other records', () => {
    expect(code(() => checkNameConflicts(draft('A', `sub.${Z}`, '192.0.2.1'), [stored('NS', 'ns.net')], Z))).toBe(81056);
    expect(code(() => checkNameConflicts(draft('NS', `sub.${Z}`, 'ns.net'), [stored('TXT', '"x"')], Z))).toBe(1112);
    expect(code(() => checkNameConflicts(draft('NS', `sub.${Z}`, 'ns2.net'), [stored('NS', 'ns.net')], Z))).toBeUndefined();
    expect(code(() => checkNameConflicts(draft('A', Z, '192.0.2.1'), [stored('NS', 'ns.net')], Z))).toBeUndefined();
  });

  it('DS lives at the delegation point beside NS, in either order', () => {
    const ds = '2371 13 2 1F987CC6583E92DF0890718C42A0B4EF1DE0C2C22E5C5E7E45B2E1B1A2D3C4F5';
    expect(code(() => checkNameConflicts(draft('DS', `sub.${Z}`, ds), [stored('NS', 'ns.net')], Z))).toBeUndefined();
    expect(code(() => checkNameConflicts(draft('NS', `sub.${Z}`, 'ns.net'), [stored('DS', ds)], Z))).toBeUndefined();
    expect(code(() => checkNameConflicts(draft('TXT', `sub.${Z}`, '"x"'), [stored('NS', 'ns.net'), stored('DS', ds)], Z))).toBe(81056);
  });

  it('identical means same type, content (any case) and priority', () => {
    expect(code(() => checkNameConflicts(draft('MX', Z, 'MX.net', { priority: 10 }), [stored('MX', 'mx.net', 10)], Z))).toBe(81058);
    expect(code(() => checkNameConflicts(draft('MX', Z, 'mx.net', { priority: 20 }), [stored('MX', 'mx.net', 10)], Z))).toBeUndefined();
    expect(code(() => checkNameConflicts(draft('A', Z, '192.0.2.2'), [stored('A', '192.0.2.1')], Z))).toBeUndefined();
  });

  it('TXT records at one name hold at most 8192 characters together (quotes not counted)', () => {
    const full = (ch: string) => `"${ch.repeat(2048)}"`;
    const three = [stored('TXT', full('a')), stored('TXT', full('b')), stored('TXT', full('c'))];
    expect(code(() => checkNameConflicts(draft('TXT', Z, full('d')), three, Z))).toBeUndefined();
    expect(code(() => checkNameConflicts(draft('TXT', Z, '"e"'), [...three, stored('TXT', full('d'))], Z))).toBe(9526);
    // Other types do not count; a record replaced is not among the others.
    expect(code(() => checkNameConflicts(draft('TXT', Z, full('d')), [...three, stored('CAA', `0 issue "${'x'.repeat(5000)}"`)], Z))).toBeUndefined();
  });
});

describe('checkProxiedCname', () => {
  const zone: Record<string, { type: string; content: string }[]> = {
    [`a.${Z}`]: [{ type: 'A', content: '192.0.2.1' }],
    [`c1.${Z}`]: [{ type: 'CNAME', content: `a.${Z}` }],
    [`c2.${Z}`]: [{ type: 'CNAME', content: `c1.${Z}` }],
    [`out.${Z}`]: [{ type: 'CNAME', content: 'cdn.example.net' }],
    [`txt.${Z}`]: [{ type: 'TXT', content: '"x"' }],
    [`l1.${Z}`]: [{ type: 'CNAME', content: `l2.${Z}` }],
    [`l2.${Z}`]: [{ type: 'CNAME', content: `l1.${Z}` }],
  };
  const lookup = async (name: string) => zone[name] ?? [];
  const check = async (target: string, proxied = true) => {
    try { await checkProxiedCname(draft('CNAME', `p.${Z}`, target, { proxied }), Z, lookup); return undefined; } catch (e) { return (e as { code: number }).code; }
  };

  it('accepts chains that reach an A/AAAA or leave the zone', async () => {
    expect(await check(`a.${Z}`)).toBeUndefined();
    expect(await check(`c2.${Z}`)).toBeUndefined();
    expect(await check(`out.${Z}`)).toBeUndefined();
    expect(await check('elsewhere.example.net')).toBeUndefined();
  });

  it('refuses chains that end at a name without an address, or loop; DNS-only CNAMEs are not checked', async () => {
    expect(await check(`txt.${Z}`)).toBe(1109);
    expect(await check(`missing.${Z}`)).toBe(1109);
    expect(await check(`l1.${Z}`)).toBe(1109);
    expect(await check(`missing.${Z}`, false)).toBeUndefined();
  });

  it('inZone matches the apex and names below it only', () => {
    expect(inZone(Z, Z)).toBe(true);
    expect(inZone(`a.${Z}`, Z)).toBe(true);
    expect(inZone(`bad${Z}`, Z)).toBe(false);
  });
});
