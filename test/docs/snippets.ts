/**
 * The snippets and links of the project's Markdown (README.md, docs/*.md), for the doc test.
 *
 * A fenced block is a snippet; shell ones (`sh`, `bash`, `shell`) and JavaScript ones (`js`, `javascript`,
 * `mjs`, `ts`, `typescript`) run, others (toml, json, text, …) are prose. An HTML comment on the line before
 * the fence changes that, and is the whole convention:
 * - `<!-- doc-test: skip REASON -->`: the snippet does not run; the reason is mandatory and printed.
 * - `<!-- doc-test: file PATH -->`: the snippet is a file of the reader's project (wrangler.toml, worker.js):
 *   it is written to PATH in the document's folder instead of being run.
 * - `<!-- doc-test: needs TOOL[,TOOL] -->`: the snippet runs where the tools are on the PATH (CI installs them,
 *   `.ci/run`), and is listed as skipped, naming them, elsewhere.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The repository's root. */
export const ROOT = path.resolve(import.meta.dirname, '../..');

/** How a snippet is used. */
export type SnippetUse = { kind: 'run'; lang: 'sh' | 'js' | 'ts'; needs?: string[] } | { kind: 'skip'; reason: string } | { kind: 'file'; path: string } | { kind: 'prose' };

/** One fenced block. */
export interface Snippet {
  /** Relative to the root (`docs/s3.md`). */
  doc: string;
  /** Line of the opening fence (1-based). */
  line: number;
  /** The info string's first word (`sh`, `ts`, or '' for none). */
  lang: string;
  text: string;
  use: SnippetUse;
}

const RUN: Record<string, 'sh' | 'js' | 'ts'> = { sh: 'sh', bash: 'sh', shell: 'sh', js: 'js', javascript: 'js', mjs: 'js', ts: 'ts', typescript: 'ts' };
const DIRECTIVE = /^<!--\s*doc-test:\s*(\S+)\s*(.*?)\s*-->$/;

/** The documents the doc test reads: README.md, then docs/*.md by name. */
export function documents(): string[] {
  const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

/** The snippets of `doc`; throws on a directive that is malformed (unknown word, skip without reason). */
export function snippetsOf(doc: string): Snippet[] {
  const lines = fs.readFileSync(path.join(ROOT, doc), 'utf8').split('\n');
  const out: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})\s*([\w-]*)/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.trimStart().startsWith(fence); i++) body.push(lines[i]!.slice(open[1]!.length));
    const lang = open[3]!.toLowerCase();
    const directive = DIRECTIVE.exec(lines[start - 1]?.trim() ?? '');
    const where = `${doc}:${start + 1}`;
    let use: SnippetUse = RUN[lang] ? { kind: 'run', lang: RUN[lang] } : { kind: 'prose' };
    if (directive) {
      const [, word, arg] = directive;
      if (word === 'skip') {
        if (!arg) throw new Error(`${where}: <!-- doc-test: skip --> needs a reason`);
        use = { kind: 'skip', reason: arg };
      } else if (word === 'file') {
        if (!arg || path.isAbsolute(arg) || arg.split('/').includes('..')) throw new Error(`${where}: <!-- doc-test: file PATH --> needs a relative PATH`);
        use = { kind: 'file', path: arg };
      } else if (word === 'needs' && arg && RUN[lang]) {
        use = { kind: 'run', lang: RUN[lang], needs: arg.split(',').map((t) => t.trim()).filter(Boolean) };
      } else {
        throw new Error(`${where}: unknown doc-test directive "${word}" (skip REASON, file PATH or needs TOOL on a runnable snippet)`);
      }
    }
    out.push({ doc, line: start + 1, lang, text: body.join('\n') + '\n', use });
  }
  return out;
}

/** Links of `doc` that do not resolve: Markdown links to relative paths, and backticked repository paths. */
export function brokenLinks(doc: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, doc), 'utf8');
  const prose = text.replace(/^(\s*)(`{3,})[\s\S]*?^\1\2\s*$/gm, '');
  const broken: string[] = [];
  for (const m of prose.matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
    const file = path.resolve(path.dirname(path.join(ROOT, doc)), decodeURIComponent(target.split('#')[0]!));
    if (!fs.existsSync(file)) broken.push(`${doc}: link ${target} (no ${path.relative(ROOT, file)})`);
  }
  for (const m of prose.matchAll(/`((?:src|test|docs|bench|\.ci)\/[\w./-]*)`/g)) {
    const target = m[1]!.replace(/\/$/, '');
    if (!fs.existsSync(path.join(ROOT, target))) broken.push(`${doc}: \`${m[1]}\` is not in the repository`);
  }
  // Paths relative to the document, and Markdown files named alone (a document of docs/ or the root).
  for (const m of prose.matchAll(/`(\.\.\/[\w./-]+)`/g)) {
    const file = path.resolve(path.dirname(path.join(ROOT, doc)), m[1]!);
    if (path.relative(ROOT, file).startsWith('..') || !fs.existsSync(file)) broken.push(`${doc}: \`${m[1]}\` is not in the repository`);
  }
  for (const m of prose.matchAll(/`([\w-]+\.md)`/g)) {
    if (![path.join(ROOT, m[1]!), path.join(ROOT, 'docs', m[1]!)].some((f) => fs.existsSync(f))) broken.push(`${doc}: \`${m[1]}\` is not in the repository`);
  }
  return broken;
}
