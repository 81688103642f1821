/**
 * The differential suite's third side: the steps as a module script deployed to Stratus's edge runtime
 * (workerd with its own bucket binding, served by Stratus's store service), so the binding a deployed script
 * sees is judged against Miniflare step by step. The store's clock is Node's; a step's `advanceClock` inside
 * the script posts the offset to a clock endpoint in the test before the next binding call.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { EdgeRuntime } from '../../src/runtime/edge-runtime.js';
import { createLogger } from '../../src/shared/logger.js';
import { openBucketStore } from '../../src/store/index.js';
import { MemoryCatalog } from '../edge/memory-catalog.js';
import { edgeRequest } from '../edge/request.js';
import { bytes, describeError, normalize } from './portable.js';
import { COMPATIBILITY_DATE, type Outcomes } from './runners.js';
import type { StepGroup } from './step.js';

/** The edge side: `run(group)` executes a group inside a deployed script. */
export interface EdgeSide {
  run(group: StepGroup): Promise<Outcomes>;
  close(): Promise<void>;
}

/** Starts an edge runtime on a temporary store with one script holding every group. */
export async function startEdgeSide(groups: StepGroup[]): Promise<EdgeSide> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-diff-edge-'));
  let offset = 0;
  const store = await openBucketStore({ dataDir, clock: { now: () => new Date(Date.now() + offset) } });
  const clock = http.createServer((req, res) => { offset += Number(new URL(req.url!, 'http://x').searchParams.get('ms')); res.end('ok'); });
  await new Promise<void>((r) => clock.listen(0, '127.0.0.1', r));
  const clockUrl = `http://127.0.0.1:${(clock.address() as AddressInfo).port}/advance`;
  const source = [
    `const bytes = ${bytes.toString()};`,
    `const normalize = ${normalize.toString()};`,
    `const describeError = ${describeError.toString()};`,
    'const GROUPS = {',
    ...groups.map((g) => `  ${JSON.stringify(g.name)}: [\n${g.steps.map((s) => `    ${s.run.toString()},`).join('\n')}\n  ],`),
    '};',
    `let pending = [];
    async function settle() { while (pending.length) await pending.shift(); }
    // Multipart uploads: every call first waits for clock advances the step asked for.
    function upload(u) {
      return new Proxy(u, { get(t, p) {
        const v = t[p];
        return typeof v === 'function' ? async (...a) => { await settle(); return v.apply(t, a); } : v;
      } });
    }
    function bucket(b) {
      return new Proxy(b, { get(t, p) {
        const v = t[p];
        if (typeof v !== 'function') return v;
        if (p === 'resumeMultipartUpload') return (...a) => upload(v.apply(t, a));
        return async (...a) => { await settle(); const r = await v.apply(t, a); return r && typeof r.uploadPart === 'function' ? upload(r) : r; };
      } });
    }
    export default {
      async fetch(request, env) {
        const { group } = await request.json();
        const ctx = { s: {}, bytes, FixedLengthStream, advanceClock(ms) { pending.push(fetch(${JSON.stringify(clockUrl)} + '?ms=' + ms).then((r) => r.text())); } };
        const b = bucket(env[group.toUpperCase()]);
        const out = [];
        for (const run of GROUPS[group]) {
          try { out.push({ ok: normalize(await run(b, ctx)) }); } catch (e) { out.push(describeError(e)); }
        }
        return Response.json(out);
      },
    };`,
  ].join('\n');
  const catalog = new MemoryCatalog();
  catalog.deploy('diff.example.com', source, {
    date: COMPATIBILITY_DATE,
    bindings: groups.map((g) => ({ type: 'r2_bucket' as const, name: g.name.toUpperCase(), bucketName: g.name.replace(/[^a-z0-9-]/g, '-') })),
  });
  const runtime = new EdgeRuntime({
    listen: { host: '127.0.0.1', port: 0 }, catalog, logger: createLogger('error'),
    bucketFor: (_account, name, options) => store.bucket(name, options),
    scriptOutbound: ['127.0.0.1/32'],
  });
  await runtime.start();
  return {
    async run(group) {
      try {
        const res = await edgeRequest(runtime.url, 'diff.example.com', { method: 'POST', body: JSON.stringify({ group: group.name }) });
        if (res.status !== 200) throw new Error(`edge run of ${group.name} failed: ${res.status} ${res.body}`);
        return JSON.parse(res.body) as Outcomes;
      } finally {
        offset = 0;
      }
    },
    async close() {
      await runtime.close();
      await new Promise((r) => clock.close(r));
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
