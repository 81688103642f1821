/**
 * Per-request subrequest counting, as production counts it: every `fetch()` a script makes while handling a
 * request counts against the external limit, and every operation of a bucket binding against the limit of calls
 * to the platform's own services. Past a limit the call fails with production's `Error: Too many subrequests.`
 * (setup-counting.ts installs these into a script version; `limits-shim.ts` in Node writes their settings).
 */

/** The limits per request (0: none). */
export interface SubrequestLimits {
  /** `fetch()` calls. */
  fetch: number;
  /** Bucket binding operations. */
  bucket: number;
}

/** A script version's counting settings (its `__stratus_limits_config__.json` module). */
export interface LimitsConfig {
  limits: SubrequestLimits;
  /** Names of the bucket bindings whose operations are counted (none when the bucket limit is off). */
  buckets: string[];
}

/** One request's counters. */
export type Counts = SubrequestLimits;

/** What the counting setup module exports. */
export interface SubrequestCounters {
  /** Counts one call of kind ('fetch' or 'bucket') for the request in progress; an Error past the limit. */
  over(kind: keyof SubrequestLimits): Error | undefined;
  /** env with its bucket bindings counting each operation (one copy per env object). */
  withCountedBuckets<E>(env: E): E;
}

type Callable = (...args: unknown[]) => unknown;

/** The counters of `config`, charged to the request whose counts `current()` returns (none outside a request). */
export function subrequestCounters(config: LimitsConfig, current: () => Counts | undefined): SubrequestCounters {
  const LIMITS = config.limits;
  function over(kind: keyof SubrequestLimits): Error | undefined {
    const counts = current();
    if (counts === undefined || !LIMITS[kind]) return undefined;
    counts[kind] += 1;
    return counts[kind] > LIMITS[kind] ? new Error('Too many subrequests.') : undefined;
  }
  const BUCKETS = config.buckets;
  function counting<T extends object>(target: T, wrapResult: boolean): T {
    return new Proxy(target, {
      get(t, prop) {
        const value = Reflect.get(t, prop) as unknown;
        if (typeof value !== 'function') return value;
        return function (...args: unknown[]) {
          if (prop === 'resumeMultipartUpload') return upload((value as Callable).apply(t, args) as object); // no call of its own
          const error = over('bucket');
          if (error) return Promise.reject(error);
          const result = (value as Callable).apply(t, args);
          return wrapResult && prop === 'createMultipartUpload' ? (result as Promise<object>).then(upload) : result;
        };
      },
    });
  }
  const upload = (u: object) => counting(u, false);
  const wrapped = new WeakMap<object, Record<string, unknown>>();
  function withCountedBuckets<E>(env: E): E {
    if (BUCKETS.length === 0 || env === null || typeof env !== 'object') return env;
    let out = wrapped.get(env);
    if (!out) {
      const bindings = env as Record<string, unknown>;
      out = { ...bindings };
      for (const name of BUCKETS) if (bindings[name]) out[name] = counting(bindings[name] as object, true);
      wrapped.set(env, out);
    }
    return out as E;
  }
  return { over, withCountedBuckets };
}
