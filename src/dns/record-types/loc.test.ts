import { describe, expect, it } from 'vitest';
import { check } from './test-support.js';

const sf = {
  lat_degrees: 37, lat_minutes: 46, lat_seconds: 46, lat_direction: 'N',
  long_degrees: 122, long_minutes: 23, long_seconds: 35, long_direction: 'W',
  altitude: 0, size: 100, precision_horz: 0, precision_vert: 0,
};

describe('LOC', () => {
  it('derives content', () => {
    expect(check('LOC', { data: sf }).value).toEqual({ content: '37 46 46.000 N 122 23 35.000 W 0.00m 100.00m 0.00m 0.00m', data: sf, priority: null });
  });
  it('reads content when data is absent', () => {
    expect(check('LOC', { content: '37 46 46.000 N 122 23 35.000 W 0.00m 100.00m 0.00m 0.00m' }).value?.data).toEqual(sf);
  });
  it('defaults the optional fields as RFC 1876 does', () => {
    const r = check('LOC', { data: { lat_degrees: 52, lat_direction: 's', long_degrees: 4, long_seconds: 1.5, long_direction: 'e' } });
    expect(r.value?.content).toBe('52 0 0.000 S 4 0 1.500 E 0.00m 1.00m 10000.00m 10.00m');
    expect(r.value?.data).toMatchObject({ lat_direction: 'S', long_direction: 'E', size: 1 });
  });
  it('accepts the extremes', () => {
    const r = check('LOC', { data: { ...sf, lat_seconds: 59.999, long_degrees: 180, long_minutes: 0, long_seconds: 0, altitude: 42849672.95, size: 90000000 } });
    expect(r.value?.content).toBe('37 46 59.999 N 180 0 0.000 W 42849672.95m 90000000.00m 0.00m 0.00m');
  });
  it('refuses out-of-range fields, each reported', () => {
    const r = check('LOC', { data: { ...sf, lat_degrees: 91, long_minutes: 60, lat_seconds: 1.2345, long_direction: 'N', altitude: -100001 } });
    expect(r.codes).toEqual([9512, 9512, 9512, 9512, 9512]);
    expect(check('LOC', { data: { ...sf, lat_degrees: 90, lat_minutes: 1 } }).codes).toEqual([9512]);
    expect(check('LOC', { data: { ...sf, size: 90000001 } }).codes).toEqual([9512]);
    expect(check('LOC', { data: { lat_degrees: 1 } }).codes).toEqual([9512, 9512, 9512]);
  });
});
