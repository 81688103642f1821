import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Tests that run alone, after the rest: those that disturb the machine's shared services (a real PostgreSQL
 * cluster restart), and those that measure latency, which a suite running on every core would measure instead.
 * `npm test` runs `vitest run` and then `vitest run --config vitest.serial.config.ts`.
 */
export const SERIAL_TESTS = ['test/faults/postgres-restart.test.ts', 'test/runtime/loop-isolation.test.ts'];

/**
 * Test files run at once. Most of a file's time is waiting on its servers, child processes and loopback, not
 * on a core, so more files than cores run together; vitest's default (cores - 1) ran one at a time on the
 * 2-core CI machine. Every file uses resources of its own (port 0, its own data folder and PostgreSQL database),
 * so files may run in any order, side by side. `--maxWorkers N` on the command line overrides it.
 */
const WORKERS = 4;

/**
 * Files that take long mostly waiting (Terraform's AWS provider polls a lifecycle configuration for about a
 * minute; clients, wrangler and docs run many child processes; the fault tests hold outages): started first,
 * so that they overlap the rest instead of ending the run alone. Measured alone on the 2-core machine
 * (wall / CPU seconds): terraform 156/44, postgres-faults 87/24, r2-wrangler 87/30, clients 71/34,
 * wrangler-deploy 44/27, shutdown 43/14, zone-import-export 41/14, postgres-refusing 37/10, snippets 37/37.
 * Without a cache of the last run's times (CI starts from a clean checkout), vitest orders files by size.
 */
const LONG_FIRST = [
  'test/s3/terraform.test.ts',
  'test/faults/postgres-faults.test.ts',
  'test/api/r2-wrangler.test.ts',
  'test/s3/clients.test.ts',
  'test/scripts/wrangler-deploy.test.ts',
  'test/faults/shutdown.test.ts',
  'test/cli/zone-import-export.test.ts',
  'test/faults/postgres-refusing.test.ts',
  'test/docs/snippets.test.ts',
  'test/edge/edge-isolation.test.ts',
];

/** vitest's order, with {@link LONG_FIRST} ahead of every other file. */
class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification): number => {
      const i = LONG_FIRST.findIndex((name) => f.moduleId.endsWith(`/${name}`));
      return i < 0 ? LONG_FIRST.length : i;
    };
    return sorted.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map(({ f }) => f);
  }
}

/**
 * The unit tests under src/ import a few modules each and start no server: they run in one worker thread that
 * keeps its loaded modules from file to file (`isolate: false`; vitest still loads each test file afresh), instead
 * of a fresh process per file that loads its imports again (measured on src/**: collect 50 s -> 9 s summed).
 * None of them mocks modules, stubs globals or changes the environment. The worker count is fixed
 * (min = max): a non-isolated pool that lets an idle worker go ends the run with "Terminating worker thread".
 * The integration tests under test/ keep a process of their own per file (they start servers and children).
 */
const UNIT_THREADS = { isolate: false, minThreads: 1, maxThreads: 1 };

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: WORKERS,
    minWorkers: 1,
    poolOptions: { threads: UNIT_THREADS },
    sequence: { sequencer: LongFirstSequencer },
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'], pool: 'threads' } },
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: ['**/node_modules/**', ...SERIAL_TESTS], pool: 'forks' } },
    ],
  },
});
