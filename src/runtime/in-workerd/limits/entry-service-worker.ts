/**
 * The entry module of a Service Worker script (a CommonJS main module; `__stratus_limits_entry__.mjs`): the setup
 * module first, then the module that turns bindings into globals and keeps `fetch` listeners
 * (service-worker.ts), then the script; each request is dispatched to its listeners as a fetch event.
 */
import 'stratus:limits-setup';
import { listeners } from 'stratus:service-worker';
import * as script from 'stratus:script-main';
import { dispatch } from './dispatch.js';
import { entryOf } from './entry-core.js';

export * from 'stratus:script-main';
export default entryOf(script.default, { listeners, dispatch });
