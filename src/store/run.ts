/** The wrapper every binding method runs in: failures become the binding's errors. */
import type { StoreContext } from './context.js';
import { toBindingError, type StoreAction } from './errors.js';
import { StorageFullError, UnavailableError, asFault } from '../shared/faults.js';
import { IncidentLog } from '../shared/incident-log.js';
import { recordStoreOperation } from '../shared/probes.js';

/** Actions that write: their success shows the local disk takes writes again. */
const WRITES = new Set<StoreAction>(['put', 'delete', 'createMultipartUpload', 'uploadPart', 'completeMultipartUpload', 'abortMultipartUpload']);

/** Unexpected failures, logged once per kind and message with a count (per logger). */
const unexpectedLogs = new WeakMap<object, IncidentLog>();

/**
 * Runs an operation, turning failures into the binding's errors. Faults of the stores become
 * `"<action>: <message> (10043)"`; a raw fault of the local disk (SQLite, blob files) is reported to the health
 * state here, the adapters of remote stores report their own. Unexpected failures are logged once per incident.
 */
export async function run<T>(ctx: StoreContext, action: StoreAction, work: () => Promise<T>, bytesIn?: () => number): Promise<T> {
  let out: T;
  const started = performance.now();
  try {
    out = await work();
  } catch (err) {
    recordStoreOperation(action, false, (performance.now() - started) / 1000, 0, 0);
    const fault = asFault(err, 'disk');
    if (fault && !(err instanceof UnavailableError || err instanceof StorageFullError)) ctx.health.down(fault.component, err);
    const translated = toBindingError(action, fault ?? err);
    if (!fault && translated !== err && translated.cause === err) unexpectedLog(ctx).failure(`store ${action} failed: ${(err as Error).message}`, err, `store ${action} failed`);
    throw translated;
  }
  if (WRITES.has(action)) ctx.health.up('disk');
  recordStoreOperation(action, true, (performance.now() - started) / 1000, bytesIn?.() ?? sizeOf(action === 'put' ? out : undefined), action === 'get' ? bodyLength(out) : 0);
  return out;
}

/** The size of a stored object (`put`'s result; null when a condition failed). */
function sizeOf(value: unknown): number {
  const size = (value as { size?: unknown } | null | undefined)?.size;
  return typeof size === 'number' ? size : 0;
}

/** Bytes of the body a `get` hands out (the range asked for), 0 when it returned metadata only. */
function bodyLength(value: unknown): number {
  if (value === null || typeof value !== 'object' || !('body' in value)) return 0;
  const range = (value as { range?: { length?: unknown } }).range;
  return typeof range?.length === 'number' ? range.length : sizeOf(value);
}

function unexpectedLog(ctx: StoreContext): IncidentLog {
  let log = unexpectedLogs.get(ctx.logger);
  if (!log) unexpectedLogs.set(ctx.logger, (log = new IncidentLog(ctx.logger)));
  return log;
}
