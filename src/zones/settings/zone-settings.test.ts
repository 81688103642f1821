import { describe, expect, it } from 'vitest';
import { ZONE_SETTING_ROWS } from './zone-setting-catalogue.js';
import { LISTED_SETTING_IDS, ZONE_SETTING_IDS, applySetting, storedSettingView } from './zone-settings.js';

describe('zone settings catalogue', () => {
  it('has one row per id, in order, and every default passes its own check', () => {
    const ids = ZONE_SETTING_ROWS.map((r) => r.id);
    expect(ids).toEqual([...new Set(ids)].sort());
    for (const row of ZONE_SETTING_ROWS) expect(row.check(row.default, row.default), row.id).toEqual({ value: row.default });
  });

  it('lists production\'s 54 settings (privacy_pass too until the schedule removes it)', () => {
    expect(LISTED_SETTING_IDS).toHaveLength(55);
    expect(ZONE_SETTING_IDS.length).toBeGreaterThan(LISTED_SETTING_IDS.length);
  });

  it('merges partial objects field by field and refuses unknown fields', () => {
    expect(applySetting({}, 'minify', { js: 'on' })).toEqual({ css: 'off', html: 'off', js: 'on' });
    expect(() => applySetting({}, 'minify', { ts: 'on' })).toThrow(/unknown field "ts"/);
    expect(() => applySetting({}, 'advanced_ddos', 'on')).toThrow(/not editable/);
  });

  it('development mode ends on its own after 3 hours', () => {
    const on = { development_mode: { value: 'on', modified_on: '2026-01-01T00:00:00.000Z' } };
    const t0 = Date.parse('2026-01-01T00:00:00.000Z');
    expect(storedSettingView(on, 'development_mode', t0 + 1000)).toMatchObject({ value: 'on', time_remaining: 10799 });
    expect(storedSettingView(on, 'development_mode', t0 + 10_810_000)).toMatchObject({ value: 'off', time_remaining: -10 });
    expect(storedSettingView({}, 'development_mode', t0)).toMatchObject({ value: 'off', time_remaining: 0 });
  });
});
