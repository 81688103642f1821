/**
 * The names of the modules Stratus's workerd code is given as (in the workerd configs Node writes), and of the
 * settings modules it imports. The code imports them by `stratus:` specifiers (virtual-modules.d.ts); the bundler
 * (`workerd/worker-sources.ts`) names these modules in their place.
 */

/** The settings module of the supervisor and of the front (a JSON module beside the worker's own). */
export const CONFIG_MODULE = 'config.json';
// The modules put in front of a script version's own are named so they cannot be mistaken for a script's own.
/** The setup module, evaluated before any module of the script (limits/setup-counting.ts, limits/setup-none.ts). */
export const LIMITS_SETUP_MODULE = '__stratus_limits_setup__.mjs';
/** The entry module, the version's first, which workerd runs (limits/entry-module.ts, limits/entry-service-worker.ts). */
export const LIMITS_ENTRY_MODULE = '__stratus_limits_entry__.mjs';
/** The module evaluated before a Service Worker script (limits/service-worker.ts). */
export const SERVICE_WORKER_MODULE = '__stratus_service_worker__.mjs';
/** A script version's subrequest limits and counted bucket bindings (a JSON module, only when something is counted). */
export const LIMITS_CONFIG_MODULE = '__stratus_limits_config__.json';
