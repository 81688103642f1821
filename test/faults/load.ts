/**
 * Writers that keep a Stratus busy while a test breaks its stores, and the bookkeeping the fault tests assert
 * on: every answer's status (and v4/S3 error code), every acknowledged write, answers that were not in the
 * interface's own error format, and the time of the last failure.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { GetObjectCommand, PutObjectCommand, S3ServiceException } from '@aws-sdk/client-s3';

/** Where the v4 API is and who calls it (a TestServer or a spawned `stratus serve`). */
export interface ApiTarget {
  apiBase: string;
  email: string;
  key: string;
}

/** What a set of writers saw. */
export interface LoadReport {
  /** Answers by `status` or `status:code`. */
  byStatus: Map<string, number>;
  /** Acknowledged writes: key -> value. */
  acked: Map<string, string>;
  /** Answers that were not a proper error document (the first few, for the failure message). */
  malformed: string[];
  /** Epoch ms of the latest failed write and of the latest successful one. */
  lastFailure: number;
  lastSuccess: number;
  /** Epoch ms of every success (for recovery times). */
  successes: number[];
}

/** Running writers. */
export interface Writers {
  report: LoadReport;
  /** Waits until `n` more writes were acknowledged (or throws after `ms`). */
  waitForSuccesses(n: number, ms?: number): Promise<void>;
  /** Waits until a write failed with `status` (or throws after `ms`). */
  waitForStatus(status: number, ms?: number): Promise<void>;
  stop(): Promise<LoadReport>;
}

function newReport(): LoadReport {
  return { byStatus: new Map(), acked: new Map(), malformed: [], lastFailure: 0, lastSuccess: 0, successes: [] };
}

function count(r: LoadReport, key: string): void {
  r.byStatus.set(key, (r.byStatus.get(key) ?? 0) + 1);
}

/**
 * Polls `cond` until it holds; throws after `ms`. The pause between polls starts at 20 ms and grows to 100 ms:
 * a condition that is an HTTP request or a database query costs CPU that the rest of the suite is waiting for.
 */
export async function waitUntil(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  for (let pause = 20; ; pause = Math.min(100, Math.round(pause * 1.25))) {
    if (await cond()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pause));
  }
}

function run(n: number, once: (worker: number, seq: number, report: LoadReport) => Promise<void>): Writers {
  const report = newReport();
  let stopping = false;
  const loops = Array.from({ length: n }, async (_, worker) => {
    for (let seq = 0; !stopping; seq++) {
      await once(worker, seq, report);
      if (report.lastFailure > report.lastSuccess) await new Promise((r) => setTimeout(r, 25)); // no busy loop while down
    }
  });
  return {
    report,
    async waitForSuccesses(k, ms = 60_000) {
      const target = report.successes.length + k;
      await waitUntil(() => report.successes.length >= target, ms, `${k} acknowledged writes`);
    },
    async waitForStatus(status, ms = 60_000) {
      await waitUntil(() => [...report.byStatus.keys()].some((k) => k.startsWith(`${status}`)), ms, `an answer with status ${status}`);
    },
    async stop() {
      stopping = true;
      await Promise.all(loops);
      return report;
    },
  };
}

/** `n` writers creating TXT records in `zoneId` through the v4 API (raw fetch, so every status is seen). */
export function recordWriters(server: ApiTarget, zoneId: string, n: number, prefix = 'w'): Writers {
  return run(n, async (worker, seq, report) => {
    const name = `${prefix}${worker}-${seq}`;
    let status = 0;
    try {
      const res = await fetch(`${server.apiBase}/zones/${zoneId}/dns_records`, {
        method: 'POST',
        headers: { 'x-auth-email': server.email, 'x-auth-key': server.key, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'TXT', name, content: `"v${seq}"`, ttl: 120 }),
      });
      status = res.status;
      const text = await res.text();
      let body: { success?: boolean; result?: { id: string }; errors?: { code: number }[] } | undefined;
      try { body = JSON.parse(text); } catch { /* malformed */ }
      if (status === 200 && body?.success && body.result) {
        report.acked.set(body.result.id, name);
        report.lastSuccess = Date.now();
        report.successes.push(report.lastSuccess);
        count(report, '200');
        return;
      }
      report.lastFailure = Date.now();
      const code = body?.errors?.[0]?.code;
      if (body?.success !== false || code === undefined) report.malformed.length < 5 && report.malformed.push(`${status} ${text.slice(0, 200)}`);
      if (status === 503 && res.headers.get('retry-after') === null) report.malformed.length < 5 && report.malformed.push('503 without Retry-After');
      count(report, `${status}:${code}`);
    } catch (err) {
      report.lastFailure = Date.now();
      count(report, `fetch failed: ${(err as Error).message}`);
    }
  });
}

/**
 * `n` writers sending batches of `size` TXT creates named `<prefix><worker>-<seq>-<i>`; an acknowledged batch is
 * recorded under its first record's id, with the names of all its records (joined by spaces).
 */
export function batchWriters(server: ApiTarget, zoneId: string, n: number, size: number, prefix = 'b'): Writers {
  return run(n, async (worker, seq, report) => {
    const names = Array.from({ length: size }, (_, i) => `${prefix}${worker}-${seq}-${i}`);
    try {
      const res = await fetch(`${server.apiBase}/zones/${zoneId}/dns_records/batch`, {
        method: 'POST',
        headers: { 'x-auth-email': server.email, 'x-auth-key': server.key, 'content-type': 'application/json' },
        body: JSON.stringify({ posts: names.map((name) => ({ type: 'TXT', name, content: '"batch"', ttl: 120 })) }),
      });
      const text = await res.text();
      let body: { success?: boolean; result?: { posts: { id: string }[] }; errors?: { code: number }[] } | undefined;
      try { body = JSON.parse(text); } catch { /* malformed */ }
      if (res.status === 200 && body?.success && body.result) {
        report.acked.set(body.result.posts[0]!.id, names.join(' '));
        report.lastSuccess = Date.now();
        report.successes.push(report.lastSuccess);
        count(report, '200');
        return;
      }
      report.lastFailure = Date.now();
      const code = body?.errors?.[0]?.code;
      if (body?.success !== false || code === undefined) report.malformed.length < 5 && report.malformed.push(`${res.status} ${text.slice(0, 200)}`);
      if (res.status === 503 && res.headers.get('retry-after') === null) report.malformed.length < 5 && report.malformed.push('503 without Retry-After');
      count(report, `${res.status}:${code}`);
    } catch (err) {
      report.lastFailure = Date.now();
      count(report, `fetch failed: ${(err as Error).message}`);
    }
  });
}

/** Names of the TXT records `zoneId` holds. */
export async function recordNames(server: ApiTarget, zoneId: string, zoneName: string): Promise<Set<string>> {
  const names = new Set<string>();
  for (let page = 1; ; page++) {
    const res = await fetch(`${server.apiBase}/zones/${zoneId}/dns_records?type=TXT&per_page=5000&page=${page}`, { headers: { 'x-auth-email': server.email, 'x-auth-key': server.key } });
    const body = (await res.json()) as { result: { name: string }[]; result_info: { total_pages: number } };
    for (const r of body.result) names.add(r.name.slice(0, -(zoneName.length + 1)));
    if (page >= body.result_info.total_pages) break;
  }
  return names;
}

/** `n` writers putting objects `<prefix><worker>-<seq>` into `bucket` over S3 (no SDK retries). */
export function objectWriters(s3: S3Client, bucket: string, n: number, prefix = 'o', bodyBytes = 200): Writers {
  return run(n, async (worker, seq, report) => {
    const key = `${prefix}${worker}-${seq}`;
    const value = `${key}:${'x'.repeat(bodyBytes)}`;
    try {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: value }));
      report.acked.set(key, value);
      report.lastSuccess = Date.now();
      report.successes.push(report.lastSuccess);
      count(report, '200');
    } catch (err) {
      report.lastFailure = Date.now();
      if (err instanceof S3ServiceException) count(report, `${err.$metadata.httpStatusCode}:${err.name}`);
      else count(report, `failed: ${(err as Error).message}`);
    }
  });
}

/** Keys of `acked` whose object is missing or different in `bucket`. */
export async function missingObjects(s3: S3Client, bucket: string, acked: Map<string, string>): Promise<string[]> {
  const missing: string[] = [];
  for (const [key, value] of acked) {
    try {
      const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      if ((await got.Body!.transformToString()) !== value) missing.push(key);
    } catch {
      missing.push(key);
    }
  }
  return missing;
}

/** Ids of `acked` records that the API does not list in `zoneId`. */
export async function missingRecords(server: ApiTarget, zoneId: string, acked: Map<string, string>): Promise<string[]> {
  const present = new Set<string>();
  for (let page = 1; ; page++) {
    const res = await fetch(`${server.apiBase}/zones/${zoneId}/dns_records?type=TXT&per_page=5000&page=${page}`, { headers: { 'x-auth-email': server.email, 'x-auth-key': server.key } });
    const body = (await res.json()) as { result: { id: string }[]; result_info: { total_pages: number } };
    for (const r of body.result) present.add(r.id);
    if (page >= body.result_info.total_pages) break;
  }
  return [...acked.keys()].filter((id) => !present.has(id));
}

/** A readable summary of a report, for failure messages. */
export function summary(r: LoadReport): string {
  return JSON.stringify({ byStatus: Object.fromEntries(r.byStatus), acked: r.acked.size, malformed: r.malformed });
}
