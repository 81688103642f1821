import { expect, it } from 'vitest';
import { FIRST_RETRY_DELAY_MS, MAX_RETRY_DELAY_MS, RetryDelay } from './retry-delay.js';

it('waits nothing at first, then doubles from the first delay up to the maximum after failures in a row, and nothing again after a success', () => {
  let now = 1_000_000;
  const delay = new RetryDelay(() => now);
  expect(delay.waitMs()).toBe(0);
  const waits: number[] = [];
  for (let i = 0; i < 8; i++) {
    delay.failed();
    waits.push(delay.waitMs());
  }
  expect(waits[0]).toBe(FIRST_RETRY_DELAY_MS);
  expect(waits[1]).toBe(FIRST_RETRY_DELAY_MS * 2);
  expect(waits.at(-1)).toBe(MAX_RETRY_DELAY_MS);
  for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThanOrEqual(waits[i - 1]!);
  now += 300;
  expect(delay.waitMs()).toBe(MAX_RETRY_DELAY_MS - 300);
  delay.succeeded();
  expect(delay.waitMs()).toBe(0);
  delay.failed();
  expect(delay.waitMs()).toBe(FIRST_RETRY_DELAY_MS);
});
