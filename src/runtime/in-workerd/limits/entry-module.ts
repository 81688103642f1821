/**
 * The entry module of a script version whose main module is an ES module (`__stratus_limits_entry__.mjs`, the
 * version's first module, which workerd runs): the setup module first, then the script, re-exported with its
 * default export wrapped (entry-core.ts). `stratus:script-main` is the version's main module (`limitModules`).
 */
import 'stratus:limits-setup';
import * as script from 'stratus:script-main';
import { entryOf } from './entry-core.js';

export * from 'stratus:script-main';
export default entryOf(script.default);
