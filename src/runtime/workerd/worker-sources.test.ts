/**
 * Stratus's workerd code as text (worker-sources.ts) and a script version's modules in front of its own
 * (limits-shim.ts): every bundle builds from src/runtime/in-workerd and imports only modules workerd is given;
 * the version's main module is named in its entry, and its limits travel as a JSON module.
 */
import { describe, expect, it } from 'vitest';
import { LIMITS_CONFIG_MODULE, LIMITS_ENTRY_MODULE, LIMITS_SETUP_MODULE, SERVICE_WORKER_MODULE } from '../in-workerd/module-names.js';
import { limitModules } from './limits-shim.js';
import { SCRIPT_MAIN_SPECIFIER, WORKER_BUNDLES, withScriptMain, workerSource, type WorkerBundle } from './worker-sources.js';

/** The module specifiers a bundle imports. */
const importsOf = (text: string) => [...text.matchAll(/(?:\bfrom\s*|^import\s*)"([^"]+)"/gm)].map((m) => m[1]!);

describe('workerd code bundles', () => {
  it('builds every bundle, importing only what workerd is given beside it', () => {
    const allowed = new Set(['./config.json', `./${LIMITS_SETUP_MODULE}`, `./${SERVICE_WORKER_MODULE}`, `./${LIMITS_CONFIG_MODULE}`,
      'cloudflare:workers', 'node:async_hooks', SCRIPT_MAIN_SPECIFIER]);
    for (const name of Object.keys(WORKER_BUNDLES) as WorkerBundle[]) {
      const text = workerSource(name);
      expect(text.length, name).toBeGreaterThan(100);
      expect(importsOf(text).filter((s) => !allowed.has(s)), name).toEqual([]);
    }
    expect(importsOf(workerSource('supervisor'))).toContain('./config.json');
    expect(importsOf(workerSource('limits-setup'))).toEqual(['node:async_hooks', `./${LIMITS_CONFIG_MODULE}`]);
    expect(importsOf(workerSource('limits-setup-none'))).toEqual([]);
  });

  it('imports the setup module first in both entries, before the script', () => {
    for (const name of ['limits-entry', 'limits-entry-service-worker'] as const) {
      const specs = importsOf(workerSource(name));
      expect(specs[0], name).toBe(`./${LIMITS_SETUP_MODULE}`);
      expect(specs.indexOf(SCRIPT_MAIN_SPECIFIER), name).toBeGreaterThan(0);
    }
    const sw = importsOf(workerSource('limits-entry-service-worker'));
    expect(sw.indexOf(`./${SERVICE_WORKER_MODULE}`)).toBeLessThan(sw.indexOf(SCRIPT_MAIN_SPECIFIER));
  });

  it('names the script\'s main module in an entry, escaped, and refuses a text without its two places', () => {
    const text = withScriptMain(workerSource('limits-entry'), 'src/we"ird.js');
    expect(text).not.toContain(SCRIPT_MAIN_SPECIFIER);
    expect(text.split(JSON.stringify('./src/we"ird.js'))).toHaveLength(3);
    expect(() => withScriptMain('export default 1;', 'index.js')).toThrow(/names stratus:script-main 0 times/);
  });
});

describe('limitModules', () => {
  it('gives an ES module script the entry and the setup without counting, and no flag, when no limit is on', () => {
    const shim = limitModules('index.js', 'esm', ['B'], { fetch: 0, bucket: 0 }, ['x']);
    expect(shim.modules.map((m) => [m.name, m.kind])).toEqual([[LIMITS_ENTRY_MODULE, 'esModule'], [LIMITS_SETUP_MODULE, 'esModule']]);
    expect(shim.modules[0]!.source).toContain('"./index.js"');
    expect(shim.modules[1]!.source).toBe(workerSource('limits-setup-none'));
    expect(shim.flags).toEqual(['x']);
  });

  it('counts through the limits config module, with nodejs_als unless the script has it or nodejs_compat', () => {
    const shim = limitModules('main.mjs', 'esm', ['B', 'C'], { fetch: 50, bucket: 1000 }, []);
    const config = shim.modules.find((m) => m.name === LIMITS_CONFIG_MODULE)!;
    expect(config.kind).toBe('json');
    expect(JSON.parse(config.source)).toEqual({ limits: { fetch: 50, bucket: 1000 }, buckets: ['B', 'C'] });
    expect(shim.modules[1]!.source).toBe(workerSource('limits-setup'));
    expect(shim.flags).toEqual(['nodejs_als']);
    expect(limitModules('main.mjs', 'esm', [], { fetch: 50, bucket: 0 }, ['nodejs_compat']).flags).toEqual(['nodejs_compat']);
    const fetchOnly = limitModules('main.mjs', 'esm', ['B'], { fetch: 50, bucket: 0 }, []);
    expect(JSON.parse(fetchOnly.modules.find((m) => m.name === LIMITS_CONFIG_MODULE)!.source).buckets).toEqual([]);
  });

  it('puts the Service Worker module and entry in front of a CommonJS main', () => {
    const shim = limitModules('worker.js', 'commonjs', [], { fetch: 0, bucket: 0 }, []);
    expect(shim.modules.map((m) => m.name)).toEqual([LIMITS_ENTRY_MODULE, LIMITS_SETUP_MODULE, SERVICE_WORKER_MODULE]);
    expect(shim.modules[0]!.source).toBe(withScriptMain(workerSource('limits-entry-service-worker'), 'worker.js'));
    expect(shim.modules[2]!.source).toBe(workerSource('limits-service-worker'));
  });
});
