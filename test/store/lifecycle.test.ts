/**
 * Lifecycle rules applied by the store's sweeper, with a clock the test moves: deletion after an age and on a
 * date, transition to InfrequentAccess, abort of incomplete multipart uploads (the default rule of a new
 * bucket after 7 days), prefix conditions, disabled rules. On SQLite, then on two PostgreSQL nodes sharing a
 * database: they sweep at once and each object is deleted once; a node that crashes halfway leaves every
 * object it had not reached, and the other node finishes once the lease runs out.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBucketStore } from '../../src/store/open.js';
import type { BucketNamespace, BucketStore } from '../../src/store/types.js';
import type { MetadataStore } from '../../src/store/ports.js';
import { PostgresMetadataStore } from '../../src/store/adapters/postgres-metadata.js';
import { FileBlobStore } from '../../src/store/adapters/file-blobs.js';
import { parseLifecycleRules } from '../../src/store/lifecycle/rules.js';
import { LIFECYCLE_LEASE_MS } from '../../src/store/lifecycle/sweeper.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { tempDir } from './helpers.js';

const DAY = 86_400_000;
const T0 = Date.parse('2030-01-01T00:00:00Z');
const ACCOUNT = 'a'.repeat(32);

/** A clock the test sets. */
function testClock() {
  let at = T0;
  return { now: () => new Date(at), set: (ms: number) => { at = ms; } };
}

const rules = parseLifecycleRules([
  { id: 'logs', enabled: true, conditions: { prefix: 'logs/' }, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 30 * 86400 } },
    storageClassTransitions: [{ condition: { type: 'Age', maxAge: 10 * 86400 }, storageClass: 'InfrequentAccess' }] },
  { id: 'tmp', enabled: true, conditions: { prefix: 'tmp/' }, deleteObjectsTransition: { condition: { type: 'Date', date: new Date(T0 + 5 * DAY).toISOString() } } },
  { id: 'off', enabled: false, conditions: { prefix: 'keep/' }, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 86400 } } },
  { id: 'uploads', enabled: true, conditions: { prefix: 'up/' }, abortMultipartUploadsTransition: { condition: { type: 'Age', maxAge: 2 * 86400 } } },
]);

async function keys(b: BucketNamespace, name: string): Promise<string[]> {
  return (await b.bucket(name).list()).objects.map((o) => o.key);
}

/** The rules on one store, step by step through time. */
async function scenario(store: BucketStore, clock: ReturnType<typeof testClock>): Promise<void> {
  const ns = store.forAccount(ACCOUNT);
  expect(await ns.createBucket('lc')).toBe('created');
  await ns.putBucketLifecycle('lc', [...(await ns.getBucketLifecycle('lc'))!, ...rules]);
  const b = ns.bucket('lc');
  for (const k of ['logs/old.txt', 'tmp/x', 'keep/a.txt', 'other.txt']) await b.put(k, `body ${k}`);
  const short = await b.createMultipartUpload('up/short.bin');
  await short.uploadPart(1, 'part');
  const long = await b.createMultipartUpload('elsewhere.bin');

  clock.set(T0 + 3 * DAY);
  expect(await store.applyLifecycle()).toEqual({ deletedObjects: 0, transitionedObjects: 0, abortedUploads: 1 });
  expect((await ns.listUploads('lc')).map((u) => u.uploadId)).toEqual([long.uploadId]);

  clock.set(T0 + 6 * DAY);
  expect(await store.applyLifecycle()).toEqual({ deletedObjects: 1, transitionedObjects: 0, abortedUploads: 0 });
  expect(await keys(ns, 'lc')).toEqual(['keep/a.txt', 'logs/old.txt', 'other.txt']);

  clock.set(T0 + 8 * DAY); // the default rule: incomplete uploads go after 7 days
  expect((await store.applyLifecycle()).abortedUploads).toBe(1);
  expect(await ns.listUploads('lc')).toEqual([]);

  await b.put('logs/new.txt', 'young'); // uploaded at T0 + 8 days
  clock.set(T0 + 11 * DAY);
  expect(await store.applyLifecycle()).toEqual({ deletedObjects: 0, transitionedObjects: 1, abortedUploads: 0 });
  expect((await b.head('logs/old.txt'))!.storageClass).toBe('InfrequentAccess');
  expect((await b.head('logs/new.txt'))!.storageClass).toBe('Standard');
  expect(await (await b.get('logs/old.txt') as { text(): Promise<string> }).text()).toBe('body logs/old.txt');

  clock.set(T0 + 31 * DAY);
  expect(await store.applyLifecycle()).toEqual({ deletedObjects: 1, transitionedObjects: 1, abortedUploads: 0 });
  expect(await keys(ns, 'lc')).toEqual(['keep/a.txt', 'logs/new.txt', 'other.txt']);
  // A rewrite starts the age again: the new version is judged by its own upload time.
  await b.put('logs/new.txt', 'rewritten');
  clock.set(T0 + 45 * DAY);
  expect((await store.applyLifecycle()).deletedObjects).toBe(0);
  expect(await (await b.get('logs/new.txt') as { text(): Promise<string> }).text()).toBe('rewritten');
}

describe('lifecycle rules on SQLite', () => {
  it('deletes, transitions and aborts as the rules say, when they say', async () => {
    const clock = testClock();
    const dir = tempDir();
    const store = await openBucketStore({ dataDir: dir, clock, sweepOnOpen: false, gcDelayMs: 0 });
    try {
      await scenario(store, clock);
      // The background pass applies the rules by itself.
      await store.close();
      clock.set(T0 + 62 * DAY); // past the rewritten object's 30 days, and past the closed store's lease
      const background = await openBucketStore({ dataDir: dir, clock, sweepOnOpen: false, lifecycleIntervalMs: 20 });
      const ns = background.forAccount(ACCOUNT);
      for (let i = 0; (await ns.bucket('lc').head('logs/new.txt')) !== null; i++) {
        if (i > 500) throw new Error('the background pass never deleted logs/new.txt');
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(await keys(ns, 'lc')).toEqual(['keep/a.txt', 'other.txt']);
      await background.close();
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('lifecycle rules on two PostgreSQL nodes', () => {
  let url: string;
  let drop: () => Promise<void>;
  const blobs = tempDir('stratus-lc-blobs-');
  beforeAll(async () => { ({ url, drop } = await freshPostgresUrl('lifecycle')); });
  afterAll(async () => {
    await drop?.();
    fs.rmSync(blobs, { recursive: true, force: true });
  });

  /** A node: its own pool on the shared database, the shared blob folder; `meta` may be wrapped. */
  async function node(clock: ReturnType<typeof testClock>, wrap: (m: MetadataStore) => MetadataStore = (m) => m): Promise<BucketStore> {
    const meta = wrap(await PostgresMetadataStore.connect(url));
    return openBucketStore({ dataDir: blobs, clock, sweepOnOpen: false, adapters: { meta, blobs: new FileBlobStore(blobs) } });
  }

  it('applies the rules as on SQLite', async () => {
    const clock = testClock();
    const store = await node(clock);
    try {
      await scenario(store, clock);
    } finally {
      await store.close();
    }
  });

  it('two nodes sweeping at once delete each due object once and nothing else', async () => {
    const clock = testClock();
    const [a, b] = [await node(clock), await node(clock)];
    try {
      const ns = a.forAccount(ACCOUNT);
      await ns.createBucket('race');
      await ns.putBucketLifecycle('race', rules);
      for (let i = 0; i < 40; i++) await ns.bucket('race').put(`logs/${String(i).padStart(2, '0')}`, `v${i}`);
      await ns.bucket('race').put('keep/stay', 'stay');
      clock.set(T0 + 31 * DAY);
      const [ra, rb] = await Promise.all([a.applyLifecycle(), b.applyLifecycle()]);
      expect(ra.deletedObjects + rb.deletedObjects).toBe(40);
      expect(Math.min(ra.deletedObjects, rb.deletedObjects)).toBe(0); // the lease: one node acts on the bucket
      expect(await keys(b.forAccount(ACCOUNT), 'race')).toEqual(['keep/stay']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a node crashing halfway loses nothing; the other finishes after the lease runs out', async () => {
    const clock = testClock();
    let deletes = 0;
    const crashing = (m: MetadataStore): MetadataStore => new Proxy(m, {
      get(target, prop, receiver) {
        if (prop === 'deleteObjectVersion') {
          return async (...args: [string, string, string]) => {
            if (++deletes > 5) throw new Error('node crashed');
            return target.deleteObjectVersion(...args);
          };
        }
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const [a, b] = [await node(clock, crashing), await node(clock)];
    try {
      const ns = b.forAccount(ACCOUNT);
      await ns.createBucket('crash');
      await ns.putBucketLifecycle('crash', rules);
      for (let i = 0; i < 12; i++) await ns.bucket('crash').put(`logs/${String(i).padStart(2, '0')}`, `v${i}`);
      clock.set(T0 + 20 * DAY);
      await ns.bucket('crash').put('logs/young', 'young');
      clock.set(T0 + 31 * DAY);
      await expect(a.applyLifecycle()).rejects.toThrow('node crashed');
      const left = await keys(ns, 'crash');
      expect(left.length).toBe(13 - 5);
      expect(left).toContain('logs/young');
      for (const k of left) expect(await (await ns.bucket('crash').get(k) as { text(): Promise<string> }).text()).toMatch(/^v\d+$|^young$/);
      expect((await b.applyLifecycle()).deletedObjects).toBe(0); // the crashed node still holds the lease
      clock.set(T0 + 31 * DAY + LIFECYCLE_LEASE_MS + 1);
      expect((await b.applyLifecycle()).deletedObjects).toBe(7);
      expect(await keys(ns, 'crash')).toEqual(['logs/young']);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
