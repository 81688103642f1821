/**
 * The limits' rules on one node (memory counters) with a clock moved by hand: windows, the request rate and its
 * headers, the failed-authentication slow-down and cool-down, client address keys.
 */
import { describe, expect, it } from 'vitest';
import { AuthThrottle, SLOW_STEP_MS } from './auth-throttle.js';
import { RateLimit } from './rate-limit.js';
import { RateLimitedError } from './rate-limited.js';
import { clientKey } from './client-address.js';
import { MemoryCounters, windowAt } from './window-counters.js';
import type { Clock } from '../shared/clock.js';
import { openLimits } from './limits.js';
import { ConfigError, loadConfig } from '../config/config.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { silentLogger } from '../shared/logger.js';

/** A clock at `at` ms that tests move. */
function manual(at: number): Clock & { at: number } {
  const c = { at, now: () => new Date(c.at) };
  return c;
}

const START = Date.UTC(2026, 0, 1, 12, 0, 10); // 10 s into a 300 s window

async function refusal(p: Promise<unknown>): Promise<RateLimitedError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof RateLimitedError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('windows', () => {
  it('are aligned to multiples of their length since the epoch', () => {
    expect(windowAt(new Date(START), 300)).toEqual({ start: Date.UTC(2026, 0, 1, 12) / 1000, seconds: 300 });
  });
});

describe('request rate', () => {
  it('counts per subject, answers the Ratelimit headers and refuses past the limit until the window ends', async () => {
    const clock = manual(START);
    const limit = new RateLimit(new MemoryCounters(clock), clock, { limit: 3, windowSeconds: 300, name: 'v4' });
    expect(await limit.take('user:a', 'v4')).toEqual({ ratelimit: '"default";r=2;t=290', 'ratelimit-policy': '"default";q=3;w=300' });
    await limit.take('user:a', 'v4');
    expect((await limit.take('user:a', 'v4')).ratelimit).toBe('"default";r=0;t=290');
    const refused = await refusal(limit.take('user:a', 'v4'));
    expect(refused).toMatchObject({ status: 429, code: 971, reason: 'rate', retryAfterSeconds: 290 });
    expect(refused.headers).toEqual({ ratelimit: '"default";r=0;t=290', 'ratelimit-policy': '"default";q=3;w=300', 'retry-after': '290' });
    expect((await limit.take('user:b', 'v4')).ratelimit).toBe('"default";r=2;t=290'); // another user is not limited
    clock.at += 290_000; // the next window
    expect((await limit.take('user:a', 'v4')).ratelimit).toBe('"default";r=2;t=300');
  });

  it('does not count refused requests', async () => {
    const clock = manual(START);
    const counters = new MemoryCounters(clock);
    const limit = new RateLimit(counters, clock, { limit: 1, windowSeconds: 60, name: 'v4' });
    await limit.take('s', 'v4');
    for (let i = 0; i < 5; i++) await refusal(limit.take('s', 'v4'));
    expect(await counters.count('v4:s', windowAt(clock.now(), 60))).toBe(1);
  });
});

describe('failed-authentication throttle', () => {
  const setup = (limit = 4) => {
    const clock = manual(START);
    const slept: number[] = [];
    const throttle = new AuthThrottle(new MemoryCounters(clock), clock, { limit, windowSeconds: 300, sleep: async (ms) => { slept.push(ms); } });
    return { clock, slept, throttle };
  };

  it('slows failures past half the limit, then refuses the address for the rest of the window and the next', async () => {
    const { clock, slept, throttle } = setup();
    for (let i = 0; i < 4; i++) {
      await throttle.check('192.0.2.7', 'v4');
      await throttle.failed('192.0.2.7', 'v4');
    }
    expect(slept).toEqual([SLOW_STEP_MS, 2 * SLOW_STEP_MS]);
    const refused = await refusal(throttle.check('192.0.2.7', 's3'));
    expect(refused).toMatchObject({ status: 429, code: 971, reason: 'auth-cooldown', retryAfterSeconds: 290 + 300 });
    await throttle.check('192.0.2.8', 'v4'); // another address is not refused
    await throttle.check(undefined, 'v4'); // nor a request without one
    clock.at += 290_000;
    expect((await refusal(throttle.check('192.0.2.7', 'v4'))).retryAfterSeconds).toBe(300);
    clock.at += 300_000;
    await throttle.check('192.0.2.7', 'v4');
  });

  it('counts an IPv6 /64 as one client and an IPv4-mapped address as IPv4', async () => {
    const { throttle } = setup(2);
    await throttle.failed('2001:db8:1:2::5', 'v4');
    await throttle.failed('2001:db8:1:2:ffff::9', 'v4');
    await refusal(throttle.check('2001:db8:1:2:aaaa:bbbb:cccc:dddd', 'v4'));
    await throttle.check('2001:db8:1:3::5', 'v4');
    await throttle.failed('::ffff:192.0.2.1', 'v4');
    await throttle.failed('192.0.2.1', 'v4');
    await refusal(throttle.check('192.0.2.1', 'v4'));
  });
});

describe('client keys', () => {
  it('normalise addresses', () => {
    expect(clientKey('127.0.0.1')).toBe('127.0.0.1');
    expect(clientKey('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('2001:0db8:0000:0001::1')).toBe('2001:db8:0:1::/64');
    expect(clientKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKey(undefined)).toBeUndefined();
  });
});

describe('configuration', () => {
  it("defaults to production's API limit and 20 failures per 5 minutes, S3 rate off; 0 turns a limit off", () => {
    expect(loadConfig({}, {}).limits).toEqual({ apiRequests: 1200, s3Requests: 0, windowSeconds: 300, authFailures: 20, authFailureWindowSeconds: 300 });
    const limits = loadConfig({ 'rate-limit': '0', 's3-rate-limit': '7', 'auth-failure-limit': '0' }, { STRATUS_RATE_LIMIT_WINDOW: '60' }).limits;
    expect(limits).toMatchObject({ apiRequests: 0, s3Requests: 7, windowSeconds: 60, authFailures: 0 });
    expect(() => loadConfig({ 'rate-limit': '-1' }, {})).toThrow(ConfigError);
    expect(() => loadConfig({ 'auth-failure-window': '0' }, {})).toThrow(/--auth-failure-window must be a whole number/);
    const opened = openLimits({ config: limits, db: undefined as unknown as Kysely<Database>, dialect: 'sqlite', clock: manual(START), logger: silentLogger() });
    expect([opened.api, opened.auth, opened.s3 !== undefined]).toEqual([undefined, undefined, true]);
    const off = openLimits({ config: { ...limits, s3Requests: 0 }, db: undefined as unknown as Kysely<Database>, dialect: 'postgres', clock: manual(START), logger: silentLogger() });
    expect(Object.keys(off)).toEqual(['close']); // nothing counted, no shared counters started
  });
});
