/** The edge-script runtime: `stratus dev` and the pieces it is made of. See docs/runtime.md. */
export { startDevServer, type DevServerOptions, type RunningDevServer } from './dev-server.js';
export { ScriptHost, ScriptLoadError, type ScriptHostOptions } from './script-host.js';
export { loadScriptConfig, validateScriptConfig, ScriptConfigError, isJsIdentifier, isBucketName, type ScriptConfig, type BucketBinding } from './script-config.js';
