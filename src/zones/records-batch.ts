/**
 * `POST /zones/:zone_id/dns_records/batch` (reference dns-api.md §6.1): `{deletes, patches, puts, posts}`,
 * each optional, run in that order (array order within each) in ONE transaction, each operation seeing the
 * ones before it (a delete frees the name for a CNAME posted after it). The first failing operation stops
 * the batch, nothing is applied, and its error is returned with its place prefixed to the message
 * (`posts[2]: An identical record already exists.`), code and status unchanged. At most
 * `plan.recordsPerBatch` operations in all (1216).
 */
import type { DnsRecord } from '../dns/record.js';
import { AppError } from '../shared/errors.js';
import { RecordValidationError } from './record-body.js';
import type { RecordRequestContext, RecordsService, ZoneRef } from './records-service.js';
import { ZONEFILE_CODES } from './zonefile/errors.js';
import { faultOf } from '../shared/faults.js';

/** A batch body after shape checks. */
export interface BatchRequest {
  deletes: { id: string }[];
  patches: ({ id: string } & Record<string, unknown>)[];
  puts: ({ id: string } & Record<string, unknown>)[];
  posts: Record<string, unknown>[];
}

/** The records each list produced (deleted ones as they were). */
export interface BatchResult {
  deletes: DnsRecord[];
  patches: DnsRecord[];
  puts: DnsRecord[];
  posts: DnsRecord[];
}

const LISTS = ['deletes', 'patches', 'puts', 'posts'] as const;

/** Checks the shape of a batch body; throws 1215 (listing every problem) or 1216. */
export function parseBatch(body: Record<string, unknown>, maxOperations: number): BatchRequest {
  const problems: AppError[] = [];
  const out: BatchRequest = { deletes: [], patches: [], puts: [], posts: [] };
  for (const list of LISTS) {
    const raw = body[list];
    if (raw === undefined || raw === null) continue;
    if (!Array.isArray(raw)) { problems.push(new AppError(ZONEFILE_CODES.badBatch, `${list} must be an array of objects`)); continue; }
    raw.forEach((item: unknown, i) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        problems.push(new AppError(ZONEFILE_CODES.badBatch, `${list}[${i}] must be an object`));
        return;
      }
      const op = item as Record<string, unknown>;
      if (list !== 'posts' && (typeof op.id !== 'string' || op.id === '')) {
        problems.push(new AppError(ZONEFILE_CODES.badBatch, `${list}[${i}] needs the "id" of the record to ${list === 'deletes' ? 'delete' : 'change'}`));
        return;
      }
      (out[list] as unknown[]).push(list === 'deletes' ? { id: op.id } : op);
    });
  }
  if (problems.length > 0) throw new AppError(problems[0]!.code, problems[0]!.message, 400, { others: problems.slice(1) });
  const total = LISTS.reduce((n, l) => n + out[l].length, 0);
  if (total > maxOperations) {
    throw new AppError(ZONEFILE_CODES.batchTooLarge, `The batch has ${total} operations; at most ${maxOperations} are allowed per request.`);
  }
  return out;
}

/** The same error with its batch place in front of every message. */
function placed(err: unknown, where: string): unknown {
  if (!(err instanceof AppError) || faultOf(err)) return err; // a store fault stays what it is (503, Retry-After)
  const all = err.all().map((e) => new AppError(e.code, `${where}: ${e.message}`, e.status, { chain: e.chain }));
  return err instanceof RecordValidationError ? new RecordValidationError(all) : new AppError(all[0]!.code, all[0]!.message, err.status, { others: all.slice(1), chain: err.chain });
}

/** Runs a batch in one transaction. */
export async function runBatch(records: RecordsService, zone: ZoneRef, batch: BatchRequest, ctx: RecordRequestContext): Promise<BatchResult> {
  const result: BatchResult = { deletes: [], patches: [], puts: [], posts: [] };
  if (LISTS.every((l) => batch[l].length === 0)) return result;
  return records.transaction(zone, async (tx) => {
    const step = async (list: (typeof LISTS)[number], i: number, op: () => Promise<DnsRecord>): Promise<void> => {
      try {
        result[list].push(await op());
      } catch (err) {
        throw placed(err, `${list}[${i}]`);
      }
    };
    for (const [i, d] of batch.deletes.entries()) await step('deletes', i, () => tx.delete(d.id));
    for (const [i, p] of batch.patches.entries()) await step('patches', i, () => tx.patch(p.id, p, ctx));
    for (const [i, p] of batch.puts.entries()) await step('puts', i, () => tx.overwrite(p.id, p, ctx));
    for (const [i, p] of batch.posts.entries()) await step('posts', i, () => tx.create(p, ctx));
    return result;
  });
}
