/**
 * The V8 flags every workerd process of the edge runs with (workerd.capnp's `Config.v8Flags`): young-generation
 * garbage collections made small and frequent, run between requests, so none stalls a request for long.
 *
 * Why (measured, issue 28; docs/edge.md, "The p99 tail"): with V8's defaults a workerd serving a hello world at
 * 2,000 requests/s collects its young generation about once a second, and each collection also destroys the C++
 * objects (requests, headers, responses) of every request since the last one, in its epilogue, which V8's own
 * pause figure leaves out. The thread stops for 15-30 ms each time (`perf`: `Heap::CallGCEpilogueCallbacks` ->
 * `Headers::~Headers`), which was the whole p99 tail of the edge, and of workerd alone.
 *
 * - `--max-semi-space-size=1`: the young generation holds at most 1 MiB per semi-space (V8 grows it to 8-16 MiB
 *   under load), so a collection has at most about a thousand requests' objects to destroy;
 * - `--minor-gc-task-trigger=5`: once it is 5% full, V8 posts a young-generation collection as a task, which
 *   workerd runs between requests, every few dozen requests: each pause is well under a millisecond.
 *
 * The cost: more, smaller collections (about 4 µs of CPU per request more in the measurement), and objects that
 * live across a few dozen requests are promoted to the old generation sooner. A script's own memory limit is
 * unchanged (the old generation is not capped).
 */
export const EDGE_V8_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--minor-gc-task-trigger=5'];

/**
 * The flags the edge's workerd processes get: {@link EDGE_V8_FLAGS}, or `STRATUS_WORKERD_V8_FLAGS` when set
 * (space-separated; empty: V8's defaults), for measuring and tuning.
 */
export function edgeV8Flags(env: NodeJS.ProcessEnv = process.env): readonly string[] {
  const own = env['STRATUS_WORKERD_V8_FLAGS'];
  return own === undefined ? EDGE_V8_FLAGS : own.split(/\s+/).filter((f) => /^--[a-z0-9-]+(=[\w.-]+)?$/.test(f));
}

/** The `v8Flags = [...]` line of a workerd config (each flag a Cap'n Proto string literal). */
export function v8FlagsLine(flags: readonly string[] = edgeV8Flags()): string {
  return `v8Flags = [${flags.map((f) => JSON.stringify(f)).join(', ')}],`;
}
