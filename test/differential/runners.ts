/**
 * Runs step groups on both sides: inside Miniflare's workerd (the steps' source text becomes a module
 * script, so the real runtime binding with its client-side checks is exercised, Headers included), and in
 * Node against a Stratus bucket opened with `openBucketStore` on a temporary folder.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Miniflare } from 'miniflare';
import { FixedLengthStream, openBucketStore, type BucketStore } from '../../src/store/index.js';
import { bytes, describeError, normalize } from './portable.js';
import type { StepContext, StepGroup } from './step.js';

/** The compatibility date both sides run at. */
export const COMPATIBILITY_DATE = '2025-01-01';

/** One normalized outcome per step: `{ ok: value }` or `{ error: { name, message } }`. */
export type Outcomes = any[];

/** Miniflare with one bucket per group; `run(group)` executes a group inside workerd. */
export interface MiniflareSide {
  run(group: StepGroup): Promise<Outcomes>;
  dispose(): Promise<void>;
}

/** Starts one Miniflare for the given groups (one per test file: its start-up is slow). */
export async function startMiniflareSide(groups: StepGroup[]): Promise<MiniflareSide> {
  const source = [
    `const bytes = ${bytes.toString()};`,
    `const normalize = ${normalize.toString()};`,
    `const describeError = ${describeError.toString()};`,
    'const GROUPS = {',
    ...groups.map((g) => `  ${JSON.stringify(g.name)}: [\n${g.steps.map((s) => `    ${s.run.toString()},`).join('\n')}\n  ],`),
    '};',
    `export default {
      async fetch(request, env) {
        const { group } = await request.json();
        const ctx = { s: {}, bytes, FixedLengthStream, advanceClock() {} };
        const b = env[group.toUpperCase()];
        const out = [];
        for (const run of GROUPS[group]) {
          try { out.push({ ok: normalize(await run(b, ctx)) }); } catch (e) { out.push(describeError(e)); }
        }
        return Response.json(out);
      },
    };`,
  ].join('\n');
  const mf = new Miniflare({
    modules: true, script: source, compatibilityDate: COMPATIBILITY_DATE,
    r2Buckets: groups.map((g) => g.name.toUpperCase()),
  });
  await mf.ready;
  return {
    async run(group) {
      const send = () => mf.dispatchFetch('http://localhost/', { method: 'POST', body: JSON.stringify({ group: group.name }) });
      // A kept-alive connection Miniflare's workerd closed as the request was written (EPIPE, reset) never reached
      // the worker: sent again once. Any other failure, or one after the worker ran, fails the run.
      const res = await send().catch((err: Error & { cause?: { code?: string } }) => {
        if (err.cause?.code === 'EPIPE' || err.cause?.code === 'ECONNRESET') return send();
        throw err;
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`Miniflare run of ${group.name} failed: ${res.status} ${text}`);
      return JSON.parse(text) as Outcomes;
    },
    dispose: () => mf.dispose(),
  };
}

/** Stratus on a temporary data folder, with a clock the steps can move forward. */
export interface StratusSide {
  run(group: StepGroup): Promise<Outcomes>;
  store: BucketStore;
  close(): Promise<void>;
}

/** Opens a Stratus bucket store on a fresh temporary folder. */
export async function startStratusSide(): Promise<StratusSide> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-diff-'));
  let offset = 0;
  const store = await openBucketStore({ dataDir, clock: { now: () => new Date(Date.now() + offset) } });
  return {
    store,
    async run(group) {
      const b = store.bucket(group.name, { compatibilityDate: COMPATIBILITY_DATE });
      const ctx: StepContext = { s: {}, bytes, FixedLengthStream, advanceClock: (ms) => { offset += ms; } };
      const out: Outcomes = [];
      try {
        for (const s of group.steps) {
          try { out.push({ ok: normalize(await s.run(b, ctx)) }); } catch (e) { out.push(describeError(e)); }
        }
      } finally {
        offset = 0;
      }
      // The same JSON round trip as Miniflare's answer (drops undefined members alike).
      return JSON.parse(JSON.stringify(out)) as Outcomes;
    },
    async close() {
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
