/**
 * `stratus dev`'s catalog: one script, read from disk, answers every hostname. Its modules are the entry
 * file and the modules it imports by relative path, transitively (ES modules `.js`/`.mjs`, CommonJS `.cjs`,
 * WebAssembly `.wasm`, text `.txt`/`.html`, binary `.bin`), named by their path relative to the entry's
 * folder, as the production tooling uploads modules without bundling. `stratus dev` reloads it when the files
 * change (dev-reload.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EdgeCatalog, EdgeTarget, ScriptBinding, ScriptBundle, ScriptLimits, ScriptModule } from '../edge/types.js';
import { WORKERD_COMPATIBILITY_DATE } from './workerd/process.js';

const KINDS: Record<string, ScriptModule['type']> = { '.js': 'esm', '.mjs': 'esm', '.cjs': 'commonjs', '.wasm': 'wasm', '.txt': 'text', '.html': 'text', '.bin': 'data' };
const MAX_MODULES = 2000;

/** What the dev catalog serves. */
export interface DevScript {
  name: string;
  main: string;
  compatibilityDate: string | undefined;
  compatibilityFlags: string[];
  bindings: ScriptBinding[];
  /** The config's `[limits]` (capped by the `--script-*` flags, as on `serve`). */
  limits?: ScriptLimits | undefined;
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(['"])(\.{1,2}\/[^'"]+)\1/g;

function collectModules(main: string): ScriptModule[] {
  const root = path.dirname(main);
  const out: ScriptModule[] = [];
  const seen = new Set<string>();
  const visit = (file: string, type: ScriptModule['type']): void => {
    if (seen.has(file) || out.length >= MAX_MODULES) return;
    seen.add(file);
    const content = fs.readFileSync(file);
    out.push({ name: path.relative(root, file).split(path.sep).join('/'), type, content });
    if (type !== 'esm' && type !== 'commonjs') return;
    for (const m of content.toString('utf8').matchAll(IMPORT)) {
      const target = path.resolve(path.dirname(file), m[2]!);
      const kind = KINDS[path.extname(target)];
      if (kind && fs.existsSync(target) && !path.relative(root, target).startsWith('..')) visit(target, kind);
    }
  };
  visit(main, path.extname(main) === '.cjs' ? 'commonjs' : 'esm');
  return out;
}

/** Reads `script`'s modules from disk as a bundle (throws when a module cannot be read). */
function readBundle(script: DevScript): ScriptBundle {
  const modules = collectModules(script.main);
  const hash = crypto.createHash('sha256');
  for (const m of modules) hash.update(m.name).update('\0').update(m.content);
  hash.update(JSON.stringify([script.name, script.compatibilityDate, script.compatibilityFlags, script.bindings, script.limits ?? {}]));
  return {
    accountId: 'dev', scriptName: script.name, versionId: hash.digest('hex').slice(0, 32), mainModule: modules[0]!.name, modules,
    compatibilityDate: script.compatibilityDate ?? WORKERD_COMPATIBILITY_DATE,
    compatibilityFlags: script.compatibilityFlags, bindings: script.bindings, ...(script.limits ? { limits: script.limits } : {}),
  };
}

/**
 * A catalog of one script from disk. A reload is two steps: `propose()` reads the files as a candidate
 * version (served only to whoever asks for it by id, so the runtime can load it), then `commit()` makes it
 * the version every request gets, or `discard()` drops it and the previous version keeps serving.
 */
export class DevCatalog implements EdgeCatalog {
  private current: ScriptBundle;
  private candidate: { bundle: ScriptBundle; script: DevScript } | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(private script: DevScript) {
    this.current = readBundle(script);
  }

  /** The version id every request gets. */
  get versionId(): string {
    return this.current.versionId;
  }

  /** The files the served version was read from (the entry and every module it imports), absolute. */
  get files(): string[] {
    const root = path.dirname(this.script.main);
    return this.current.modules.map((m) => path.resolve(root, m.name));
  }

  /** Reads the files again (with `script` when the config changed): the candidate, or null when nothing changed. */
  propose(script: DevScript = this.script): ScriptBundle | null {
    const next = readBundle(script);
    if (next.versionId === this.current.versionId) return null;
    this.candidate = { bundle: next, script };
    return next;
  }

  /** Serves the candidate `versionId` from now on. */
  commit(versionId: string): void {
    if (this.candidate?.bundle.versionId !== versionId) return;
    this.current = this.candidate.bundle;
    this.script = this.candidate.script;
    this.candidate = undefined;
    for (const l of this.listeners) l();
  }

  /** Drops the candidate: the served version stays. */
  discard(): void {
    this.candidate = undefined;
  }

  /** The definition of the served version. */
  get definition(): DevScript {
    return this.script;
  }

  async resolve(): Promise<EdgeTarget> {
    return { kind: 'script', accountId: 'dev', scriptName: this.current.scriptName, versionId: this.current.versionId };
  }

  async bundle(versionId: string): Promise<ScriptBundle | null> {
    if (versionId === this.current.versionId) return this.current;
    return versionId === this.candidate?.bundle.versionId ? this.candidate.bundle : null;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
