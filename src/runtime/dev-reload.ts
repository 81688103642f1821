/**
 * `stratus dev`'s reload: the folders of the script's modules and of its config file are watched
 * (`fs.watch`; editors that save by renaming are seen too, since the folder is watched, not the file), and a
 * change to one of those files, after a quiet time (debounce), reads the config and the modules again. The new
 * version is loaded by the runtime beside the old one and served only once it loaded: a config or script
 * that fails (a syntax error, a module that throws at load, a bad key) keeps the previous version serving, and
 * the error is reported. Reloads run one at a time; changes during one start another after it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DevCatalog, DevScript } from './dev-catalog.js';
import type { EdgeRuntime } from './edge-runtime.js';
import { loadScriptConfig, type ScriptConfig } from './script-config.js';

/** What a reload tells its user. */
export interface ReloadEvents {
  /** A new version serves; `warnings` are the new config's unknown keys. */
  reloaded(warnings: string[]): void;
  /** The change could not be loaded; the previous version still serves. */
  failed(message: string): void;
}

/** Options of {@link watchDevScript}. */
export interface DevReloadOptions {
  catalog: DevCatalog;
  runtime: EdgeRuntime;
  /** The config file to read again on a change (absent: the script alone). */
  configFile?: string | undefined;
  /** The script definition a config yields (bindings, main, name). */
  definition(config: ScriptConfig | undefined): DevScript;
  events: ReloadEvents;
  /** Quiet time after the last change before reloading, ms. Default 100. */
  debounceMs?: number;
}

/** A running watch. */
export interface DevReloader {
  /** Reloads now (also what a change triggers); resolves when this reload and any it queued are done. */
  reload(): Promise<void>;
  close(): void;
}

/** Starts watching the script's files and config. */
export function watchDevScript(opts: DevReloadOptions): DevReloader {
  const watchers = new Map<string, fs.FSWatcher>();
  let files = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;

  const schedule = (): void => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => void reload(), opts.debounceMs ?? 100);
  };

  /** Watches the folder of every file of the served version and the config (and only those). */
  const sync = (): void => {
    if (closed) return;
    files = new Set([...opts.catalog.files, ...(opts.configFile ? [path.resolve(opts.configFile)] : [])]);
    const dirs = new Set([...files].map((f) => path.dirname(f)));
    for (const [dir, w] of watchers) if (!dirs.has(dir)) { w.close(); watchers.delete(dir); }
    for (const dir of dirs) {
      if (watchers.has(dir)) continue;
      try {
        const w = fs.watch(dir, (_event, name) => { if (name === null || files.has(path.join(dir, name.toString()))) schedule(); });
        w.on('error', () => { w.close(); watchers.delete(dir); });
        watchers.set(dir, w);
      } catch (err) {
        opts.events.failed(`cannot watch ${dir}: ${(err as Error).message}`);
      }
    }
  };

  const once = async (): Promise<void> => {
    let config: ScriptConfig | undefined;
    let script: DevScript;
    try {
      if (opts.configFile) config = loadScriptConfig(opts.configFile);
      script = opts.definition(config);
    } catch (err) {
      opts.events.failed((err as Error).message);
      return;
    }
    let candidate;
    try {
      candidate = opts.catalog.propose(script);
    } catch (err) {
      opts.events.failed(`cannot read the script: ${(err as Error).message}`);
      return;
    }
    if (candidate === null) return;
    try {
      await opts.runtime.ensure(candidate.versionId);
    } catch (err) {
      opts.catalog.discard();
      opts.events.failed((err as Error).message);
      return;
    }
    opts.catalog.commit(candidate.versionId);
    sync();
    opts.events.reloaded(config?.warnings ?? []);
  };

  const reload = async (): Promise<void> => {
    if (running) { again = true; return running; }
    running = (async () => {
      do {
        again = false;
        await once();
      } while (again && !closed);
    })().finally(() => { running = undefined; });
    return running;
  };

  sync();
  return {
    reload,
    close() {
      closed = true;
      clearTimeout(timer);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}
