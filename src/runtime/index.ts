/** The edge-script runtime: the `--edge` listener (workerd), `stratus dev`, and the pieces they are made of. See docs/runtime.md. */
export { startEdge, type RunningEdge } from './start-edge.js';
export { EdgeRuntime, type EdgeRuntimeOptions } from './edge-runtime.js';
export type { BucketResolver } from './store-service/server.js';
export { startDevServer, ScriptLoadError, type DevServerOptions, type RunningDevServer } from './dev-server.js';
export { resolveDevAccount, DevAccountError, type DevAccount } from './dev-account.js';
export { loadScriptConfig, validateScriptConfig, ScriptConfigError, isJsIdentifier, isBucketName, type ScriptConfig, type BucketBinding } from './script-config.js';
