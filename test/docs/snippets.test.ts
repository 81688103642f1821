/**
 * Docs that run: every shell and JavaScript/TypeScript snippet of README.md and docs/*.md runs, in order,
 * against one fresh `stratus serve` (the built CLI, dist/; free ports, a temporary data folder, credentials
 * generated as on a first start), each document in a reader's folder of its own (doc-run.ts says what a
 * snippet finds there and which documented defaults become the server's). Snippets that cannot run say why
 * (`<!-- doc-test: skip REASON -->`, listed in the output); project files are written where the snippet says
 * (`<!-- doc-test: file PATH -->`); snippets.ts has the convention. Every relative link and backticked
 * repository path resolves.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI } from '../cli/run-cli.js';
import { waitUntil } from '../faults/load.js';
import { brokenLinks, documents, snippetsOf, type Snippet } from './snippets.js';
import { prepareFolder, runSnippet, stopBackground, substitute, substitutions, type DocServer } from './doc-run.js';
import { freePort } from '../dns-server/ports.js';

let child: ChildProcess;
let output = '';
let server: DocServer;
let work: string;
const skipped: string[] = [];

/** True when `tool` is an executable on the PATH. */
function onPath(tool: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((d) => { try { fs.accessSync(path.join(d, tool), fs.constants.X_OK); return true; } catch { return false; } });
}


beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-doc-test-'));
  const dataDir = path.join(work, 'server-data');
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('STRATUS_')));
  child = spawn(process.execPath, [CLI, 'serve', '--data-dir', dataDir, '--http', '127.0.0.1:0', '--dns', '127.0.0.1:0', '--s3', '127.0.0.1:0',
    '--edge', '127.0.0.1:0', '--admin', '127.0.0.1:0', '--dns-workers', '0', '--log-format', 'pretty', '--log-level', 'warn'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
  await waitUntil(() => /admin listening on/.test(output) || child.exitCode !== null, 90_000, 'stratus serve to start');
  const url = (re: RegExp) => {
    const m = re.exec(output);
    if (!m) throw new Error(`stratus serve did not print ${re}:\n${output}`);
    return m[1]!;
  };
  const admin = JSON.parse(fs.readFileSync(path.join(dataDir, 'credentials.json'), 'utf8')) as { email: string; key: string; api_token: string };
  const s3 = JSON.parse(fs.readFileSync(path.join(dataDir, 's3-credentials.json'), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
  const http = url(/v4 API listening on (http:\/\/\S+)\/client\/v4/);
  const accounts = await (await fetch(`${http}/client/v4/accounts`, { headers: { authorization: `Bearer ${admin.api_token}` } })).json() as { result: { id: string }[] };
  server = {
    http, s3: url(/S3 API listening on (http:\/\/\S+)/), edge: url(/edge listening on (http:\/\/\S+)/), admin: url(/admin listening on (http:\/\/\S+)/),
    dnsPort: Number(url(/DNS listening on \S+:(\d+)/)), devPort: await freePort(),
    email: admin.email, key: admin.key, token: admin.api_token, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey,
    accountId: accounts.result[0]!.id, dataDir,
  };
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  if (skipped.length > 0) console.log(`doc test: snippets that do not run, and why:\n${skipped.sort().map((s) => `  ${s}`).join('\n')}`);
  fs.rmSync(work, { recursive: true, force: true });
});

/** Runs the snippets of `doc` in order; the failures, each with its output. */
async function runDocument(doc: string, snippets: Snippet[]): Promise<string[]> {
  const dir = path.join(work, doc.replace(/[/.]/g, '-'));
  fs.mkdirSync(dir, { recursive: true });
  const { env } = prepareFolder(dir, server);
  const subs = substitutions(server);
  const failures: string[] = [];
  try {
    for (const [n, s] of snippets.entries()) {
      if (s.use.kind === 'skip') { skipped.push(`${s.doc}:${s.line}: ${s.use.reason}`); continue; }
      if (s.use.kind === 'prose') continue;
      const absent = s.use.kind === 'run' ? (s.use.needs ?? []).filter((tool) => !onPath(tool)) : [];
      if (absent.length > 0) { skipped.push(`${s.doc}:${s.line}: needs ${absent.join(', ')}, not installed here`); continue; }
      const text = substitute(s.text, subs);
      if (s.use.kind === 'file') {
        fs.mkdirSync(path.dirname(path.join(dir, s.use.path)), { recursive: true });
        fs.writeFileSync(path.join(dir, s.use.path), text);
        continue;
      }
      const r = await runSnippet(s, text, dir, env, n);
      if (process.env.DOC_TEST_DEBUG) fs.appendFileSync(process.env.DOC_TEST_DEBUG, `=== ${s.doc}:${s.line} exit ${r.code}\n${text}\n--- output\n${r.output}\n`);
      // `curl -s` exits 0 on an API error: an error envelope in the output fails the snippet too.
      const refused = /"success":\s*false/.test(r.output);
      if (r.code !== 0 || refused) failures.push(`${s.doc}:${s.line} (${s.lang}) ${refused ? 'printed an API error' : `exited ${r.code}`}:\n${text}\n--- output ---\n${r.output}`);
    }
  } finally {
    stopBackground(dir);
  }
  return failures;
}

describe('docs that run', () => {
  it('every relative link and backticked repository path resolves', () => {
    expect(documents().flatMap(brokenLinks)).toEqual([]);
  });

  for (const doc of documents()) {
    const snippets = snippetsOf(doc);
    if (!snippets.some((s) => s.use.kind !== 'prose')) continue;
    // Documents run side by side (each in its own folder, all on the one server): the README's wrangler deploy is the long pole.
    it.concurrent(`${doc}: its snippets run`, async () => {
      expect(await runDocument(doc, snippets)).toEqual([]);
    }, 600_000);
  }
});
