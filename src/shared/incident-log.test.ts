import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { IncidentLog } from './incident-log.js';
import { HealthState } from './health.js';

function capture(): { logger: pino.Logger; lines: () => Array<Record<string, unknown>> } {
  const out: string[] = [];
  const stream = new Writable({ write(chunk, _enc, cb) { out.push(String(chunk)); cb(); } });
  return { logger: pino({ level: 'info' }, stream), lines: () => out.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('IncidentLog', () => {
  it('logs the first failure of an incident, counts the rest, and logs the count once on recovery', () => {
    const { logger, lines } = capture();
    let now = 1000;
    const log = new IncidentLog(logger, { now: () => now, summaryEveryMs: 60_000 });
    for (let i = 0; i < 500; i++) { log.failure('database', new Error(`refused ${i}`)); now += 10; }
    expect(lines()).toHaveLength(1);
    expect(log.list()[0]).toMatchObject({ kind: 'database', count: 500, lastError: 'refused 499' });
    log.recovered('database');
    log.recovered('database');
    expect(lines()).toHaveLength(2);
    expect(lines()[1]).toMatchObject({ incident: 'database', failures: 500, forMs: 5000 });
    expect(log.isOpen('database')).toBe(false);
  });

  it('writes a summary at most every summaryEveryMs while an incident lasts, and closes quiet incidents', () => {
    const { logger, lines } = capture();
    let now = 0;
    const log = new IncidentLog(logger, { now: () => now, summaryEveryMs: 1000, quietMs: 5000 });
    for (let i = 0; i < 30; i++) { log.failure('x', new Error('boom')); now += 100; }
    expect(lines().map((l) => l.msg)).toEqual([expect.stringContaining('incident opened'), 'x: still failing', 'x: still failing']);
    now += 10_000;
    log.failure('x', new Error('again'));
    const msgs = lines().map((l) => l.msg);
    expect(msgs.at(-2)).toContain('incident over');
    expect(msgs.at(-1)).toContain('incident opened');
  });
});

describe('HealthState', () => {
  it('tracks each component: down with a count, up again once, in the snapshot', () => {
    const { logger, lines } = capture();
    const health = new HealthState(logger, { confirmMs: 0 });
    expect(health.snapshot()).toEqual({});
    health.up('database');
    health.down('database', new Error('ECONNREFUSED'));
    health.down('database', new Error('ECONNREFUSED'));
    expect(health.isUp('database')).toBe(false);
    expect(health.snapshot().database).toMatchObject({ up: false, failures: 2, lastError: 'ECONNREFUSED' });
    health.up('database');
    health.up('database');
    expect(health.snapshot().database).toMatchObject({ up: true, failures: 0 });
    expect(lines()).toHaveLength(2);
  });

  it('a success of an operation that began before the outage does not end it', () => {
    let now = 1_000;
    const { logger, lines } = capture();
    const health = new HealthState(logger, { now: () => now, confirmMs: 0 });
    health.up('database');
    now = 2_000;
    health.down('database', new Error('ECONNREFUSED'));
    health.up('database', 1_500); // a query answered just after the cut, sent before it
    expect(health.isUp('database')).toBe(false);
    now = 3_000;
    health.up('database', 2_500);
    expect(health.isUp('database')).toBe(true);
    expect(lines().filter((l) => String(l.msg).includes('incident opened'))).toHaveLength(1);
  });

  it('a component that flaps (up, then down again at once) stays one incident; it is over once it stays up', async () => {
    const { logger, lines } = capture();
    const health = new HealthState(logger, { confirmMs: 50 });
    health.up('database');
    health.down('database', new Error('ECONNRESET'));
    health.up('database');
    expect(health.isUp('database')).toBe(true); // readiness sees it at once
    health.down('database', new Error('ECONNRESET'));
    health.up('database');
    await vi.waitFor(() => expect(lines().some((l) => String(l.msg).includes('recovered'))).toBe(true));
    expect(lines().filter((l) => String(l.msg).includes('incident opened'))).toHaveLength(1);
    expect(lines().find((l) => String(l.msg).includes('recovered'))).toMatchObject({ failures: 2 });
  });
});
