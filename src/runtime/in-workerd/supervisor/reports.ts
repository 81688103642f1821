/**
 * Access records of finished requests, sent to Node's control service in batches (its access log and metrics).
 * A quiet edge sends each record at once; a busy one sends a batch once REPORT_BATCH records wait or REPORT_MS
 * passed since the last, rather than one report for every few requests (a report costs both processes far more
 * than a record). Records left waiting when requests stop are sent on the watchdog's next ping (at most 250 ms
 * later). A generation told it is draining (Node stops it next, and workerd does not wait for work left after
 * the last answer) sends what it holds before answering that, and each later record before its request's answer.
 */
import type { SupervisorEnv } from './types.js';

/** One finished request, as Node's access log reads it (`edge-access.ts`). */
export interface AccessRecord {
  method: string;
  path: string;
  route: string;
  status: number;
  ms?: number;
  accountId?: string;
  requestId: string;
  bytesIn: number;
  bytesOut?: number;
  remote: string | null;
  /** https when the request came through a front that vouched for it (the HTTPS listener), else http. */
  scheme: 'http' | 'https';
}

const REPORT_BATCH = 100;
const REPORT_MS = 50;

/** The path and query string of an absolute URL. */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  return start < 0 ? '/' : url.slice(start);
}

const reports: AccessRecord[] = [];
let reportingSince = 0;
let lastReport = 0;
let draining = false;

/** Node told this generation it drains: every record is sent before its request's answer from now on. */
export function startDraining(): void {
  draining = true;
}

/** Keeps a record; returns a promise to await before answering when the record must be sent first (draining). */
export function report(ctx: ExecutionContext, env: SupervisorEnv, record: AccessRecord): Promise<void> | undefined {
  if (reports.length < 10000) reports.push(record);
  if (draining) return sendReports(env);
  if (reports.length < REPORT_BATCH && Date.now() - lastReport < REPORT_MS) return undefined;
  flushReports(ctx, env);
  return undefined;
}
/** Sends the waiting records in the background unless a sender runs; one whose request context went away without finishing is replaced after 10 s. */
export function flushReports(ctx: ExecutionContext, env: SupervisorEnv): void {
  if (reports.length === 0 || (reportingSince && Date.now() - reportingSince < 10000)) return;
  reportingSince = Date.now();
  ctx.waitUntil(sendReports(env).finally(() => { reportingSince = 0; }));
}
/** Sends the waiting records; records that arrive meanwhile follow at once only as a full batch (or when draining). */
export async function sendReports(env: SupervisorEnv): Promise<void> {
  try {
    do {
      lastReport = Date.now();
      const batch = reports.splice(0, 500);
      if (batch.length === 0) break;
      const res = await env.CONTROL.fetch('http://control/access', { method: 'POST', body: JSON.stringify(batch) });
      await res.arrayBuffer();
    } while (reports.length >= REPORT_BATCH || (draining && reports.length > 0));
  } catch (err) {
    console.error('access report failed: ' + (err && (err as Error).message));
  }
}
