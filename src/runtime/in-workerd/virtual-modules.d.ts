/**
 * Modules the workerd code imports that are not files here: each generation's settings (JSON modules written by
 * Node), the module names Stratus puts beside a script's own, and workerd's built-ins that workers-types does
 * not describe. `src/runtime/worker-bundles.ts` keeps every `stratus:` specifier out of the bundle and names the
 * module it stands for in workerd (`VIRTUAL_MODULES`); `stratus:limits-setup` and `stratus:service-worker` are
 * typed by their sources (this folder's tsconfig `paths`).
 */

/** The supervisor's settings (its `config.json` module). */
declare module 'stratus:supervisor-config' {
  const config: import('./supervisor/config.js').SupervisorConfig;
  export default config;
}

/** The front worker's settings (its `config.json` module). */
declare module 'stratus:front-config' {
  const config: import('./front/config.js').FrontConfig;
  export default config;
}

/** One script version's subrequest limits and counted bucket bindings (a JSON module beside its own). */
declare module 'stratus:limits-config' {
  const config: import('./limits/counters.js').LimitsConfig;
  export default config;
}

/** The script version's own main module (its name is put in per version: `limitModules`). */
declare module 'stratus:script-main' {
  const main: unknown;
  export default main;
}

/** workerd's `AsyncLocalStorage` (the `nodejs_als` or `nodejs_compat` flag). */
declare module 'node:async_hooks' {
  export class AsyncLocalStorage<T> {
    getStore(): T | undefined;
    run<R>(store: T, callback: () => R): R;
  }
}
