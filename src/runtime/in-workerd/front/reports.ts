/**
 * Access records of the answers the front gives itself, sent to Node's control service in batches (the same path
 * and shape as the generations' supervisor reports; the generations report every other request).
 */
import { clientAddress } from '../../../edge/forwarding.js';
import { cfClientIp } from '../cf.js';
import type { FrontEnv } from './types.js';

interface FrontRecord {
  method: string;
  route: string;
  status: number;
  ms: number;
  requestId: string;
  bytesIn: number;
  bytesOut?: number;
  remote: string;
}

const reports: FrontRecord[] = [];
let reportingSince = 0;

/** Keeps the record of an answer the front gave, and sends the waiting ones unless a sender runs. */
export function report(ctx: ExecutionContext, env: FrontEnv, request: Request, started: number, status: number, route: string, ray: string, bytesOut?: number): void {
  if (reports.length < 10000) {
    reports.push({ method: request.method, route, status, ms: Date.now() - started, requestId: ray,
      bytesIn: Number(request.headers.get('content-length')) || 0, bytesOut, remote: clientAddress(cfClientIp(request)) });
  }
  if (reportingSince && Date.now() - reportingSince < 10000) return;
  reportingSince = Date.now();
  ctx.waitUntil(sendReports(env));
}
async function sendReports(env: FrontEnv): Promise<void> {
  try {
    while (reports.length > 0) {
      const res = await env.CONTROL.fetch('http://control/access', { method: 'POST', body: JSON.stringify(reports.splice(0, 500)) });
      await res.arrayBuffer();
    }
  } catch (err) {
    console.error('access report failed: ' + (err && (err as Error).message));
  } finally {
    reportingSince = 0;
  }
}
