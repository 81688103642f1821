import { describe, expect, it } from 'vitest';
import { Readiness } from './readiness.js';

describe('Readiness', () => {
  it('is not ready while starting or stopping, whatever the probes say', async () => {
    const r = new Readiness(200);
    r.add(['database'], async () => ({ database: { ok: true } }));
    expect(await r.evaluate()).toMatchObject({ ready: false, phase: 'starting', failing: ['starting'] });
    r.serving();
    expect(await r.evaluate()).toEqual({ ready: true, phase: 'serving', failing: [], checks: { database: { ok: true } } });
    r.stopping();
    r.serving();
    expect(await r.evaluate()).toMatchObject({ ready: false, phase: 'stopping', failing: ['stopping'] });
  });

  it('names every failing part, and a probe that throws fails all its parts with the message', async () => {
    const r = new Readiness(200);
    r.serving();
    r.add(['database', 'migrations'], async () => { throw new Error('connect ECONNREFUSED 127.0.0.1:5432\nmore'); });
    r.add(['dns'], async () => ({ dns: { ok: true, detail: '2 zones served' } }));
    const report = await r.evaluate();
    expect(report.ready).toBe(false);
    expect(report.failing).toEqual(['database', 'migrations']);
    expect(report.checks.database).toEqual({ ok: false, detail: 'connect ECONNREFUSED 127.0.0.1:5432' });
    expect(report.checks.dns).toEqual({ ok: true, detail: '2 zones served' });
  });

  it('answers by the deadline when a probe hangs, and never starts a second one while it runs', async () => {
    const r = new Readiness(50);
    r.serving();
    let started = 0;
    let release!: () => void;
    r.add(['database'], () => { started++; return new Promise((resolve) => { release = () => resolve({ database: { ok: true } }); }); });
    const first = await r.evaluate();
    expect(first.checks.database).toEqual({ ok: false, detail: 'no answer within 50 ms' });
    const second = await r.evaluate();
    expect(second.checks.database!.detail).toMatch(/^still waiting for a probe started \d+(\.\d)? s ago$/);
    expect(started).toBe(1);
    release();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await r.evaluate()).checks.database).toEqual({ ok: false, detail: 'no answer within 50 ms' });
    expect(started).toBe(2);
  });
});
