import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Tests that run alone, after the rest, each in a process of its own: those that disturb the machine's shared
 * services (a real PostgreSQL cluster restart), those that measure latency, which a suite running on every core
 * would measure instead, and those that measure their own process (streaming's bound on RSS growth, which a
 * process that ran other files before, with their heap, would measure less sharply).
 * `npm test` runs `vitest run` and then `vitest run --config vitest.serial.config.ts`.
 */
export const SERIAL_TESTS = ['test/faults/postgres-restart.test.ts', 'test/runtime/loop-isolation.test.ts', 'test/store/streaming.test.ts'];

/**
 * Test files run at once. Most of a file's time is waiting on its servers, child processes and loopback, not
 * on a core, so more files than cores run together; vitest's default (cores - 1) ran one at a time on the
 * 2-core CI machine. Every file uses resources of its own (port 0, its own data folder and PostgreSQL database),
 * so files may run in any order, side by side. `--maxWorkers N` on the command line overrides it.
 */
const WORKERS = 4;

/**
 * The count `--maxWorkers N` (`--maxWorkers=N`, `--max-workers N`) gives on the command line, for the pool's
 * minimum to follow (the pool refuses a minimum above its maximum); a percentage is not read.
 */
function workersOnCommandLine(): number | undefined {
  const args = process.argv;
  for (let i = 0; i < args.length; i++) {
    const flag = /^--max-?workers(?:=(.*))?$/i.exec(args[i]!);
    if (!flag) continue;
    const n = Number(flag[1] ?? args[i + 1]);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  }
  return undefined;
}

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
  'test/certs/acme-two-nodes.test.ts',
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
 */
const UNIT_THREADS = { isolate: false, minThreads: 1, maxThreads: 1 };

/**
 * The integration tests under test/ run in {@link WORKERS} child processes that each run file after file
 * (`isolate: false`), keeping the modules loaded: src/main.ts and its graph, the cloudflare and AWS SDKs. A
 * fresh process per file spent about 3 to 5 s loading them again, more than half of an API file's CPU
 * (measured: collect 599 s summed over 218 files, beside 1,648 s of tests; on test/api and test/tenancy, 40
 * files, kept processes took collect from 149 s to 32 s, CPU from 104 s to 45 s, wall from 84 s to 47 s).
 * vitest still loads each test file, and what it alone imports, afresh. This is safe because no file under
 * test/ mocks modules (vi.mock), stubs globals or the environment (vi.stub*), fakes timers, or installs process
 * listeners; the one that sets process.env (test/cli/hangup.test.ts, TMPDIR for a child) restores it in
 * `finally`. What stays in the process from file
 * to file is what one file already shares between its own servers: the prom-client registry and the probes
 * (tests read counters as differences), the id generator, each Stratus's own data folder, port and database.
 * A file whose process is what it tests starts a child (the CLI, crashes, signals, workerd), never its own
 * worker. Tests that measure their own process are in {@link SERIAL_TESTS}. As for the unit threads, the worker
 * count is fixed (`minWorkers` = `maxWorkers`; a lower `--maxWorkers` lowers both): with fewer kept, the pool
 * stops a child that goes idle near the end of the run, and the run fails with "Terminating worker thread".
 */
const INTEGRATION_FORKS = { isolate: false };

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: WORKERS,
    minWorkers: workersOnCommandLine() ?? WORKERS,
    poolOptions: { threads: UNIT_THREADS, forks: INTEGRATION_FORKS },
    sequence: { sequencer: LongFirstSequencer },
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'], pool: 'threads' } },
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: ['**/node_modules/**', ...SERIAL_TESTS], pool: 'forks', setupFiles: ['test/setup/temp-dirs.ts'] } },
    ],
  },
});
