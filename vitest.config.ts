import { defineConfig } from 'vitest/config';

/**
 * Tests that run alone, after the rest: those that disturb the machine's shared services (a real PostgreSQL
 * cluster restart), and those that measure latency, which a suite running on every core would measure instead.
 * `npm test` runs `vitest run` and then `vitest run --config vitest.serial.config.ts`.
 */
export const SERIAL_TESTS = ['test/faults/postgres-restart.test.ts', 'test/runtime/loop-isolation.test.ts'];

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...SERIAL_TESTS],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
