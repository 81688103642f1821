import { defineConfig } from 'vitest/config';
import { SERIAL_TESTS } from './vitest.config.js';

/** The tests that must run alone (see vitest.config.ts), one file at a time. */
export default defineConfig({
  test: {
    include: SERIAL_TESTS,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
    setupFiles: ['test/setup/temp-dirs.ts'],
  },
});
