import { describe, expect, it } from 'vitest';
import { SCHEDULE, phaseAt, oldBehaviourApplies } from './schedule.js';
import { matchScheduledRoutes } from './schedule-routes.js';
import { deprecationHeaders } from './headers.js';

describe('schedule', () => {
  it('moves each row through its phases on its dates', () => {
    expect(phaseAt('zone-setting-brotli', '2024-08-14')).toBe('active');
    expect(phaseAt('zone-setting-brotli', '2024-08-15')).toBe('deprecated');
    expect(phaseAt('zone-setting-privacy-pass', '2024-03-31')).toBe('removed');
    expect(phaseAt('dns-records-list-filter-forms', '2025-03-01', 'multi-value')).toBe('deprecated');
    expect(phaseAt('dns-records-list-filter-forms', '2025-05-23', 'multi-value')).toBe('removed');
    expect(oldBehaviourApplies('dns-records-zone-fields', '2024-11-29')).toBe(true);
    expect(oldBehaviourApplies('dns-records-zone-fields', '2024-11-30')).toBe(false);
    expect(() => phaseAt('nope', '2024-01-01')).toThrow();
  });

  it('matches routes by method and path, including /** tails', () => {
    expect(matchScheduledRoutes('GET', '/zones/abc/firewall/rules/r1').map((m) => [m.entry.id, m.params])).toEqual([['firewall-rules', { zone_id: 'abc', rule_id: 'r1' }]]);
    expect(matchScheduledRoutes('PATCH', '/zones/abc/filters/f')).toEqual([]);
    expect(matchScheduledRoutes('DELETE', '/zones/z/script_monitor/scripts/1')[0]!.entry.id).toBe('script-monitor-path');
    expect(matchScheduledRoutes('GET', '/zones/z/script_monitor')[0]!.entry.id).toBe('script-monitor-path');
  });

  it('builds RFC 9745 / 8594 headers', () => {
    const e = SCHEDULE.find((x) => x.id === 'dns-records-list-filter-forms')!;
    const h = deprecationHeaders(e, { zone_id: 'z' }, 'multi-value');
    expect(h.Deprecation).toBe('@1740096000');
    expect(h.Sunset).toBe('Fri, 23 May 2025 00:00:00 GMT');
    expect(h.Link).toBe('</client/v4/deprecations/dns-records-list-filter-forms>; rel="deprecation"; type="application/json"');
  });
});
