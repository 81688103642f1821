/** A bucket's lifecycle rules and default storage class, kept in the bucket registry. */
import type { StoreContext } from './context.js';
import type { LifecycleRule } from './lifecycle/rules.js';
import type { StorageClass } from './types.js';

/** The bucket's rules ([] when none are stored), or null when the bucket does not exist. */
export async function getBucketLifecycle(ctx: StoreContext, name: string): Promise<LifecycleRule[] | null> {
  const stored = await ctx.meta.getBucketLifecycle(String(name));
  if (stored !== null) return JSON.parse(stored) as LifecycleRule[];
  return (await ctx.meta.getBucket(String(name))) ? [] : null;
}

/** Replaces the bucket's rules; 'missing' when the bucket does not exist. */
export async function putBucketLifecycle(ctx: StoreContext, name: string, rules: LifecycleRule[]): Promise<'ok' | 'missing'> {
  return (await ctx.meta.setBucketLifecycle(String(name), JSON.stringify(rules))) ? 'ok' : 'missing';
}

/** Sets the bucket's default storage class; 'missing' when the bucket does not exist. */
export async function setBucketStorageClass(ctx: StoreContext, name: string, storageClass: StorageClass): Promise<'ok' | 'missing'> {
  if (storageClass !== 'Standard' && storageClass !== 'InfrequentAccess') throw new TypeError(`Unknown storage class ${String(storageClass)}: use Standard or InfrequentAccess`);
  return (await ctx.meta.setBucketStorageClass(String(name), storageClass)) ? 'ok' : 'missing';
}
