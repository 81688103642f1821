/**
 * The text of Stratus's own workerd modules (`src/runtime/in-workerd/`, TypeScript checked against workerd's
 * types by its own tsconfig), bundled by esbuild into one ES module each. `npm run build` writes them into
 * `dist/workers/` (build-worker-sources.ts) and the built package reads them from there; run from `src/` (the
 * tests), they are bundled from their sources on first use, so a test always runs the code beside it.
 *
 * The bundles keep their `stratus:` imports out and name in their place the modules Node writes beside them
 * ({@link VIRTUAL_MODULES}); the one specifier left in a bundle, `stratus:script-main` of the limits entries, is
 * a script version's main module, named per version by `limitModules` (limits-shim.ts).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_MODULE, LIMITS_CONFIG_MODULE, LIMITS_SETUP_MODULE, SERVICE_WORKER_MODULE } from '../in-workerd/module-names.js';

/** Each bundle by name: its entry file under `src/runtime/in-workerd/`. */
export const WORKER_BUNDLES = {
  supervisor: 'supervisor/main.ts',
  front: 'front/main.ts',
  'limits-entry': 'limits/entry-module.ts',
  'limits-entry-service-worker': 'limits/entry-service-worker.ts',
  'limits-setup': 'limits/setup-counting.ts',
  'limits-setup-none': 'limits/setup-none.ts',
  'limits-service-worker': 'limits/service-worker.ts',
} as const;

/** A bundle's name. */
export type WorkerBundle = keyof typeof WORKER_BUNDLES;

/** The `stratus:` specifiers of the workerd code, by the workerd module each stands for (beside the importer). */
export const VIRTUAL_MODULES: Record<string, string> = {
  'stratus:supervisor-config': `./${CONFIG_MODULE}`,
  'stratus:front-config': `./${CONFIG_MODULE}`,
  'stratus:limits-config': `./${LIMITS_CONFIG_MODULE}`,
  'stratus:limits-setup': `./${LIMITS_SETUP_MODULE}`,
  'stratus:service-worker': `./${SERVICE_WORKER_MODULE}`,
};

/** The specifier a limits entry imports the script version's main module by. */
export const SCRIPT_MAIN_SPECIFIER = 'stratus:script-main';

const here = path.dirname(fileURLToPath(import.meta.url));
/** Run from `src/` (a `.ts` file, under vitest): bundle from the sources; from `dist/`: read what the build wrote. */
const fromSources = import.meta.url.endsWith('.ts');

/** The folder of the workerd code's sources, seen from this file's folder (src/runtime/workerd or dist/runtime/workerd). */
export function workerSourcesDir(): string {
  return fromSources ? path.join(here, '..', 'in-workerd') : path.join(here, '..', '..', '..', 'src', 'runtime', 'in-workerd');
}

/** The folder `npm run build` writes the bundles into (`dist/workers`). */
export function builtWorkersDir(): string {
  return path.join(here, '..', '..', 'workers');
}

/** Bundles one of the workerd modules from its sources (esbuild, a devDependency: loaded only here). */
export function bundleWorker(name: WorkerBundle, sourcesDir = workerSourcesDir()): string {
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const result = esbuild.buildSync({
    entryPoints: [path.join(sourcesDir, WORKER_BUNDLES[name])],
    tsconfig: path.join(sourcesDir, 'tsconfig.json'),
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    external: ['stratus:*', 'cloudflare:*', 'node:*'],
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
  });
  return nameVirtualModules(result.outputFiles[0]!.text, name);
}

/** The bundle's `stratus:` imports named as the workerd modules they stand for; only the script's main is left. */
function nameVirtualModules(text: string, name: string): string {
  return text.replace(/(\bfrom\s*|\bimport\s*)"(stratus:[^"]+)"/g, (whole, lead: string, specifier: string) => {
    if (specifier === SCRIPT_MAIN_SPECIFIER) return whole;
    const module = VIRTUAL_MODULES[specifier];
    if (module === undefined) throw new Error(`workerd bundle ${name}: unknown module ${specifier}`);
    return `${lead}${JSON.stringify(module)}`;
  });
}

/**
 * A limits entry's text with the script version's main module named (`./<main>`): the one value put into the
 * text of Stratus's workerd code, since an import's specifier cannot come from configuration.
 */
export function withScriptMain(entry: string, mainModule: string): string {
  const parts = entry.split(JSON.stringify(SCRIPT_MAIN_SPECIFIER));
  if (parts.length !== 3) throw new Error(`a limits entry names ${SCRIPT_MAIN_SPECIFIER} ${parts.length - 1} times, not twice (import and re-export)`);
  return parts.join(JSON.stringify(`./${mainModule}`));
}

const loaded = new Map<WorkerBundle, string>();

/** The text of one of Stratus's workerd modules (read once per process). */
export function workerSource(name: WorkerBundle): string {
  let text = loaded.get(name);
  if (text === undefined) {
    text = fromSources ? bundleWorker(name) : readBuilt(name);
    loaded.set(name, text);
  }
  return text;
}

function readBuilt(name: WorkerBundle): string {
  const file = path.join(builtWorkersDir(), `${name}.js`);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`the workerd module ${name} is missing (${file}): run \`npm run build\``, { cause: err });
  }
}
