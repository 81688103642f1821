import { defineConfig } from 'vitest/config';

/**
 * Tests that disturb the machine's shared services (a real PostgreSQL cluster restart) run alone, after the
 * rest: `npm test` runs `vitest run` and then `vitest run --config vitest.serial.config.ts`.
 */
export const SERIAL_TESTS = ['test/faults/postgres-restart.test.ts'];

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...SERIAL_TESTS],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
