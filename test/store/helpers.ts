/** Helpers for store tests: a fresh data folder per test and an opened store on it. */
import { madeTempDir } from '../helpers/temp-dirs.js';
import { openBucketStore, type OpenBucketStoreOptions } from '../../src/store/open.js';
import type { BucketStore } from '../../src/store/types.js';

/** A new empty temporary folder, removed after the test file's tests. */
export function tempDir(prefix = 'stratus-store-'): string {
  return madeTempDir(prefix);
}

/** Opens a store on a new folder; remember to close it. */
export async function openTemp(opts: Partial<OpenBucketStoreOptions> = {}): Promise<{ store: BucketStore; dir: string }> {
  const dir = opts.dataDir ?? tempDir();
  const store = await openBucketStore({ sweepOnOpen: false, ...opts, dataDir: dir });
  return { store, dir };
}

/** Expects a promise to reject and returns the error. */
export async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

/** Deterministic bytes of a given size. */
export function bytes(size: number, seed = 1): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i] = x >> 16;
  }
  return out;
}
