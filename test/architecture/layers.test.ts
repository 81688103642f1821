/**
 * The layers of `src/` (docs/ARCHITECTURE.md, "Layers"): a file imports only from its own room (top-level
 * folder of `src/`) or a lower one, and no files import each other in a cycle, type-only imports included.
 * The order is read from the table in docs/ARCHITECTURE.md, so the document and the check cannot drift; a new
 * room fails here until it has a row. Unit tests beside their files are not counted (they may reach up).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from '../helpers/source-files.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The rooms, lowest first, from the table between the `layers` markers of docs/ARCHITECTURE.md. */
function layerOrder(): string[] {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const table = /<!-- layers:start -->([\s\S]*?)<!-- layers:end -->/.exec(doc);
  if (!table) throw new Error('docs/ARCHITECTURE.md has no layers table');
  return [...table[1]!.matchAll(/^\| *\d+ *\| *`([^`]+)` *\|/gm)].map((m) => m[1]!);
}

/** The `src/` files a file imports (static, type-only, re-exports and dynamic `import()` of relative paths). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(SRC, file), 'utf8');
  const specs = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)].map((m) => m[1]!);
  return specs.map((s) => path.relative(SRC, path.resolve(path.dirname(path.join(SRC, file)), s)).replace(/\.js$/, '.ts'));
}

/** A file's room: its top-level folder, `cli` for the executable, `(top)` for the other files at the top. */
function roomOf(file: string): string {
  const parts = file.split(path.sep);
  if (parts.length > 1) return parts[0]!;
  return file === 'cli.ts' ? 'cli' : '(top)';
}

/** Groups of files that import each other, directly or not (Tarjan's strongly connected components). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next); low.set(v, next); next++;
    stack.push(v); onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do { w = stack.pop()!; onStack.delete(w); group.push(w); } while (w !== v);
      if (group.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the layers of src/', () => {
  const order = layerOrder();
  const files = sourceFiles();
  const graph = new Map(files.map((f) => [f, importsOf(f)]));

  it('names every room in the layers table once', () => {
    expect(new Set(order).size).toBe(order.length);
    const rooms = [...new Set(files.map(roomOf))].sort();
    expect(rooms.filter((r) => !order.includes(r)), 'rooms missing from docs/ARCHITECTURE.md "Layers"').toEqual([]);
    expect(order.filter((r) => !rooms.includes(r)), 'rows of docs/ARCHITECTURE.md "Layers" with no room').toEqual([]);
  });

  it('has no import from a lower room to a higher one', () => {
    const rank = (room: string) => order.indexOf(room);
    const upward = [...graph].flatMap(([file, targets]) => targets
      .filter((t) => rank(roomOf(t)) > rank(roomOf(file)))
      .map((t) => `${file} (${roomOf(file)}) imports ${t} (${roomOf(t)})`));
    expect(upward).toEqual([]);
  });

  it('has no import cycle between files, type-only imports included', () => {
    expect(cycles(graph).map((g) => g.join(' <-> '))).toEqual([]);
  });

  it('finds an upward import and a cycle when there is one (the check can fail)', () => {
    const sample = new Map([['a/x.ts', ['b/y.ts']], ['b/y.ts', ['a/x.ts']]]);
    expect(cycles(sample)).toEqual([['a/x.ts', 'b/y.ts']]);
    expect(importsOf('main.ts').length).toBeGreaterThan(5);
  });
});
