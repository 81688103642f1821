/**
 * `stratus dev`'s catalog: one script, read from disk, answers every hostname. Its modules are the entry
 * file and the modules it imports by relative path, transitively (ES modules `.js`/`.mjs`, CommonJS `.cjs`,
 * WebAssembly `.wasm`, text `.txt`/`.html`, binary `.bin`), named by their path relative to the entry's
 * folder, as the production tooling uploads modules without bundling.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EdgeCatalog, EdgeTarget, ScriptBinding, ScriptBundle, ScriptModule } from '../edge/types.js';
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

/** A catalog of one script from disk; `reload()` reads it again as a new version. */
export class DevCatalog implements EdgeCatalog {
  private current!: ScriptBundle;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly script: DevScript) {
    this.reload();
  }

  /** The version id of the script as last read. */
  get versionId(): string {
    return this.current.versionId;
  }

  /** Reads the script's files again; a change becomes a new version. */
  reload(): void {
    const modules = collectModules(this.script.main);
    const hash = crypto.createHash('sha256');
    for (const m of modules) hash.update(m.name).update('\0').update(m.content);
    hash.update(JSON.stringify([this.script.compatibilityDate, this.script.compatibilityFlags, this.script.bindings]));
    const versionId = hash.digest('hex').slice(0, 32);
    if (this.current?.versionId === versionId) return;
    this.current = {
      accountId: 'dev', scriptName: this.script.name, versionId, mainModule: modules[0]!.name, modules,
      compatibilityDate: this.script.compatibilityDate ?? WORKERD_COMPATIBILITY_DATE,
      compatibilityFlags: this.script.compatibilityFlags, bindings: this.script.bindings,
    };
    for (const l of this.listeners) l();
  }

  async resolve(): Promise<EdgeTarget> {
    return { kind: 'script', accountId: 'dev', scriptName: this.script.name, versionId: this.current.versionId };
  }

  async bundle(versionId: string): Promise<ScriptBundle | null> {
    return versionId === this.current.versionId ? this.current : null;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
