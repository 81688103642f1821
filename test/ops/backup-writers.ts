/**
 * Sequential writers for the backup tests, each keeping the log of its acknowledged operations, so that a
 * restored copy can be compared with every state the writer's data went through: a snapshot of one moment
 * must equal the state after some prefix of each writer's log.
 */
import { createHash, randomBytes } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type Cloudflare from 'cloudflare';

/** One acknowledged operation on a named item (`value` undefined: deleted). */
export interface LoggedOp {
  name: string;
  value: string | undefined;
}

/** A writer running until stopped. */
export interface LoggedWriter {
  log: LoggedOp[];
  /** Stops after the operation in flight; rejects with the first failure. */
  stop(): Promise<void>;
}

/** Runs `step(seq)` in a loop, logging what each acknowledged step did. */
function loop(step: (seq: number) => Promise<LoggedOp>): LoggedWriter {
  const log: LoggedOp[] = [];
  let stopping = false;
  const done = (async () => {
    for (let seq = 0; !stopping; seq++) log.push(await step(seq));
  })();
  done.catch(() => undefined);
  return { log, stop: async () => { stopping = true; await done; } };
}

/** The states a log went through: after 0, 1, …, n operations (name -> value). */
export function statesOf(log: LoggedOp[]): Map<string, string>[] {
  const out: Map<string, string>[] = [new Map()];
  const cur = new Map<string, string>();
  for (const op of log) {
    if (op.value === undefined) cur.delete(op.name);
    else cur.set(op.name, op.value);
    out.push(new Map(cur));
  }
  return out;
}

/** The index of the first state of `log` equal to `state`, or -1. */
export function matchingState(log: LoggedOp[], state: Map<string, string>): number {
  return statesOf(log).findIndex((s) => s.size === state.size && [...s].every(([k, v]) => state.get(k) === v));
}

/** MD5 (hex) of every body the object writers put, by `key:seq`. */
export const putBodies = new Map<string, string>();

/**
 * Puts and deletes objects `<prefix><slot>` (4 slots) in `bucket`: bodies of 70 to 200 KiB (stored as files)
 * starting with `key:seq\n`; every fifth operation is a delete. The logged value is `seq`.
 */
export function objectWriter(s3: S3Client, bucket: string, prefix: string): LoggedWriter {
  return loop(async (seq) => {
    const key = `${prefix}${(seq * 7) % 4}`;
    if (seq % 5 === 4) {
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      return { name: key, value: undefined };
    }
    const body = Buffer.concat([Buffer.from(`${key}:${seq}\n`), randomBytes(70_000 + ((seq * 7919) % 130_000))]);
    putBodies.set(`${key}:${seq}`, createHash('md5').update(body).digest('hex'));
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    return { name: key, value: String(seq) };
  });
}

/** The objects below `prefix` as `key -> seq`, each body read whole and checked against what was put. */
export async function readObjects(s3: S3Client, bucket: string, prefix: string): Promise<Map<string, string>> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  const out = new Map<string, string>();
  for (const o of listed.Contents ?? []) {
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key! }));
    const body = Buffer.from(await got.Body!.transformToByteArray());
    const header = body.subarray(0, body.indexOf(10)).toString();
    const [key, seq] = header.split(':');
    if (key !== o.Key) throw new Error(`${o.Key} holds the body of ${key}`);
    const md5 = createHash('md5').update(body).digest('hex');
    if (putBodies.get(header) !== md5 || got.ETag !== `"${md5}"`) throw new Error(`${o.Key}: body ${header} is not the one written`);
    out.set(o.Key!, seq!);
  }
  return out;
}

/** Creates A records `<prefix><seq>` in a zone; every fourth operation deletes the record created three steps before. */
export function recordWriter(sdk: Cloudflare, zoneId: string, zoneName: string, prefix: string): LoggedWriter {
  const ids = new Map<string, string>();
  return loop(async (seq) => {
    if (seq % 4 === 3) {
      const name = `${prefix}${seq - 3}.${zoneName}`;
      await sdk.dns.records.delete(ids.get(name)!, { zone_id: zoneId });
      return { name, value: undefined };
    }
    const name = `${prefix}${seq}.${zoneName}`;
    const r = await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name, content: `192.0.2.${seq % 250}`, ttl: 300 });
    ids.set(name, r.id);
    return { name, value: `192.0.2.${seq % 250}` };
  });
}

/** The A records of a zone as `name -> content`. */
export async function readRecords(sdk: Cloudflare, zoneId: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const r of sdk.dns.records.list({ zone_id: zoneId, type: 'A', per_page: 500 })) out.set(r.name, (r as { content: string }).content);
  return out;
}
