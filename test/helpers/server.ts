/**
 * Starts a real Stratus (`startStratus` from src/main.ts) for integration tests: HTTP on 127.0.0.1 port 0,
 * DNS on port 0, a fresh temporary data folder (unless one is given, e.g. to test a restart) and known admin
 * credentials. Extra configuration is passed through as overrides of the loaded defaults. The limits on abuse
 * (request rate, failed-authentication throttle) are off unless `flags` set them: suites make thousands of
 * requests, and failed authentications on purpose, from one address.
 *
 * STRATUS_TEST_DIST=1 starts the compiled build (dist/, `npm run build` first) instead: its DNS thread answers
 * (a worker thread runs only compiled code), UDP through the native addon when built (`npm run build:native`)
 * unless the test's flags say `dns-native-udp: off` or STRATUS_TEST_DIST=js forces the JavaScript path.
 *
 * Shape (stable; other test suites rely on it):
 * `startTestServer(opts?) -> { url, apiBase, email, key, dataDir, dnsPort?, sdk(), stop() }`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Cloudflare from 'cloudflare';
import { loadConfig, type Config } from '../../src/config/config.js';
import { startStratus as startFromSource, type RunningStratus } from '../../src/main.js';
import { silentLogger, type Logger } from '../../src/shared/logger.js';
import type { Clock } from '../../src/shared/clock.js';
import type { EdgeCatalog } from '../../src/edge/types.js';

/** The compiled build's entry (STRATUS_TEST_DIST). */
const DIST_MAIN = new URL('../../dist/main.js', import.meta.url).href;

/** Default admin e-mail of a test server. */
export const TEST_EMAIL = 'admin@example.com';
/** Default admin key of a test server (37 hex characters, like production global keys). */
export const TEST_KEY = '0123456789abcdef0123456789abcdef01234';

/** Options of {@link startTestServer}. */
export interface TestServerOptions {
  /** Reuse this data folder (restart tests); default: a new temporary folder, removed by `stop()`. */
  dataDir?: string;
  email?: string;
  key?: string;
  /** Flags as the CLI takes them (`{ 'api-date': '2024-01-01' }`), applied before `config`. */
  flags?: Record<string, string>;
  /** Configuration overrides, applied last (shallow; `plan` is merged one level deep). */
  config?: Partial<Omit<Config, 'plan'>> & { plan?: Partial<Config['plan']> };
  clock?: Clock;
  logger?: Logger;
  /** Keep the data folder on `stop()` even when it was created here. */
  keepDataDir?: boolean;
  /** What the edge runtime serves instead of the control plane's catalog (with `flags: { edge: '127.0.0.1:0' }`). */
  edgeCatalog?: EdgeCatalog;
}

/** A running test server. */
export interface TestServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `http://127.0.0.1:PORT/client/v4` */
  apiBase: string;
  email: string;
  key: string;
  dataDir: string;
  /** Port of the DNS listener, when the running build has one. */
  dnsPort?: number;
  /** The running instance (for access to anything else it exposes). */
  running: RunningStratus;
  /** An official SDK client pointed at this server with the admin credentials (no retries). */
  sdk(): Cloudflare;
  /** Stops the server; removes the data folder if this helper created it (unless `keepDataDir`). */
  stop(): Promise<void>;
}

/** S3 credentials of test servers. */
export const TEST_S3_ACCESS_KEY_ID = 'stratustestaccesskey0000000000aa';
export const TEST_S3_SECRET = 'stratus-test-secret-0000000000000000000000000000000000000000000a';

/** Starts Stratus on port 0 with a fresh (or given) data folder and known credentials. */
export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const created = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-test-'));
  const email = opts.email ?? TEST_EMAIL;
  const key = opts.key ?? TEST_KEY;
  // `data-dir` here too, so that what derives from it (the blobs folder) is inside the test's folder, not ./.stratus.
  const base = loadConfig({ 'data-dir': dataDir, http: '127.0.0.1:0', dns: '127.0.0.1:0', s3: '127.0.0.1:0', admin: '127.0.0.1:0', edge: 'off', 's3-access-key-id': TEST_S3_ACCESS_KEY_ID, 's3-secret-access-key': TEST_S3_SECRET, 'rate-limit': '0', 'auth-failure-limit': '0', ...fastPathFlags(), ...opts.flags }, {});
  const { plan, ...rest } = opts.config ?? {};
  const config: Config = {
    ...base,
    dataDir,
    authEmail: email,
    authKey: key,
    ...rest,
    plan: { ...base.plan, ...plan },
  };
  const dist = process.env.STRATUS_TEST_DIST;
  if (dist === 'js') config.dnsNativeUdp = false;
  const startStratus: typeof startFromSource = dist ? ((await import(DIST_MAIN)) as { startStratus: typeof startFromSource }).startStratus : startFromSource;
  const running = await startStratus(config, opts.logger ?? silentLogger(), opts.clock, opts.edgeCatalog);
  const wanted = dist === 'js' || config.dnsNativeUdp === false || config.dnsWorkers === 0 ? 'js' : 'native';
  if (dist && running.dnsUdp.udp !== wanted) {
    await running.close();
    throw new Error(`STRATUS_TEST_DIST: UDP on the ${running.dnsUdp.udp} path, not ${wanted} (${running.dnsUdp.why ?? ''})`);
  }
  const url = running.httpUrl;
  const apiBase = `${url}/client/v4`;
  const dnsPort = (running as RunningStratus & { dnsPort?: number }).dnsPort;
  let stopped = false;
  return {
    url,
    apiBase,
    email,
    key,
    dataDir,
    ...(dnsPort !== undefined ? { dnsPort } : {}),
    running,
    sdk: () => new Cloudflare({ apiEmail: email, apiKey: key, baseURL: apiBase, maxRetries: 0 }),
    async stop() {
      if (stopped) return;
      stopped = true;
      await running.close();
      if (created && !opts.keepDataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** EDGE_TEST_FAST_PATH=off runs every suite's edge without the fast path (`--edge-fast-path`, on by default). */
function fastPathFlags(): Record<string, string> {
  return process.env.EDGE_TEST_FAST_PATH === 'off' ? { 'edge-fast-path': 'off' } : {};
}
