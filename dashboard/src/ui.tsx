/** Small building blocks every page uses: errors as the API words them, labelled fields, loading, paging. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api';

/** The API's errors (or any failure) as a list, announced to screen readers. */
export function Errors({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null;
  const entries = error instanceof ApiError ? error.errors : [{ code: 0, message: String((error as Error)?.message ?? error) }];
  return (
    <div class="errors" role="alert" id={id}>
      <ul>{entries.map((e, i) => <li key={i}>{e.message}{e.code ? <span class="code"> ({e.code})</span> : null}</li>)}</ul>
    </div>
  );
}

/** A labelled control; `error` shows under it, tied by aria-describedby. */
export function Field({ label, children, hint }: { label: string; children: ComponentChildren; hint?: string }) {
  return (
    <label class="field">
      <span class="label">{label}</span>
      {children}
      {hint ? <span class="hint">{hint}</span> : null}
    </label>
  );
}

/** Loads data when `deps` change; `reload` loads again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: undefined, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then((data) => live && setState({ data, error: undefined, loading: false }), (error) => live && setState({ data: undefined, error, loading: false }));
    return () => { live = false; };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** Runs an action, keeping its error and whether it is running. */
export function useAction(): { busy: boolean; error: unknown; run: (f: () => Promise<unknown>) => Promise<boolean>; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = async (f: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await f();
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(undefined) };
}

/** Loading text or the load's error. */
export function LoadState({ loading, error }: { loading: boolean; error: unknown }) {
  if (error) return <Errors error={error} />;
  return loading ? <p class="muted" aria-live="polite">Loading…</p> : null;
}

/** Previous/next paging from a v4 `result_info`. */
export function Pager({ info, page, onPage }: { info: Record<string, any> | undefined; page: number; onPage: (p: number) => void }) {
  if (!info) return null;
  const pages = Number(info.total_pages ?? 1);
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>Previous page</button>
      <span>Page {page} of {pages} ({info.total_count ?? info.count} in all)</span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>Next page</button>
    </nav>
  );
}

/** A human size. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}
