/**
 * The v4 answer to a backing-store fault (shared/faults.ts): 503 with code 1280 and `Retry-After` while the
 * database or the blob store is away, 507 with code 1281 when the disk is full. Raw driver errors that reach
 * the edge unwrapped are recognised too. The official SDKs retry 5xx answers with backoff and honour
 * `Retry-After` (reference dns-api.md §SDK).
 */
import { asFault, StorageFullError } from '../shared/faults.js';
import { errorEntries, failureBody } from './envelope.js';

/** The envelope response for a fault, or undefined when `err` is not one. */
export function faultResponse(err: unknown): Response | undefined {
  const fault = asFault(err, 'database');
  if (!fault) return undefined;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (!(fault instanceof StorageFullError)) headers['retry-after'] = String(fault.retryAfterSeconds);
  return new Response(JSON.stringify(failureBody(errorEntries(fault))), { status: fault.status, headers });
}
