/**
 * Where and how the doc test runs snippets: a reader's folder per document, with `stratus` on the PATH (the
 * built CLI, as `npm install -g` gives it), `npx X` running the X on the PATH (the project's wrangler, the
 * shim), `import … from 'stratus'` resolving to this checkout, the tools of a CI machine (curl, dig, jq,
 * aws, s3cmd, rclone), and the documented defaults replaced by the test server's:
 * - addresses: `127.0.0.1:8787` (v4 API), `:8788` (S3), `:8080` (edge), `:9464` (admin), `-p 1053` /
 *   `:1053` (DNS), `127.0.0.1:8790` (the README's `stratus dev`);
 * - the data folder: `--data-dir ./.stratus` (the default) is the server's;
 * - credentials: the README's example admin key, `<token>` and the "printed at first start" token, `<id>`
 *   and `<secret>` (the S3 key pair), `<account id>`; `stratus credentials` reads the server's data folder, and `--env` names its listeners.
 * `stratus serve` in a snippet stands for the test's server, already running with the generated
 * credentials; `stratus dev` runs in the background until the document is done (as in a second terminal).
 * Shell snippets of one document share variables, exports and the working folder, as one terminal session.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { transform } from 'esbuild';
import { ROOT, type Snippet } from './snippets.js';

/** What the test's server offers the snippets. */
export interface DocServer {
  http: string;
  s3: string;
  edge: string;
  admin: string;
  dnsPort: number;
  devPort: number;
  email: string;
  key: string;
  token: string;
  accessKeyId: string;
  secretAccessKey: string;
  accountId: string;
  dataDir: string;
}

/** The documented defaults and placeholders, and what they become. */
export function substitutions(s: DocServer): [RegExp | string, string][] {
  const hostPort = (url: string) => url.replace(/^https?:\/\//, '');
  return [
    ['127.0.0.1:8787', hostPort(s.http)], ['localhost:8787', hostPort(s.http)],
    ['127.0.0.1:8788', hostPort(s.s3)], ['127.0.0.1:8080', hostPort(s.edge)], ['127.0.0.1:9464', hostPort(s.admin)],
    ['127.0.0.1:8790', `127.0.0.1:${s.devPort}`],
    [/-p 1053\b/g, `-p ${s.dnsPort}`], [/127\.0\.0\.1:1053\b/g, `127.0.0.1:${s.dnsPort}`],
    ['0123456789abcdef0123456789abcdef01234', s.key],
    ['<the "Authorization: Bearer" token printed at first start>', s.token], ['<token>', s.token],
    [/--data-dir \.\/\.stratus\b/g, `--data-dir ${s.dataDir}`],
    ['<id>', s.accessKeyId], ['<secret>', s.secretAccessKey], ['<account id>', s.accountId],
  ];
}

/** `text` with every substitution applied. */
export function substitute(text: string, subs: [RegExp | string, string][]): string {
  let out = text;
  for (const [from, to] of subs) out = typeof from === 'string' ? out.split(from).join(to) : out.replace(from, to);
  return out;
}

/** A finished snippet. */
export interface SnippetResult {
  code: number;
  output: string;
}

/** Prepares `dir` as a reader's folder: shims, node_modules with `stratus`, the files snippets read as the reader's own. */
export function prepareFolder(dir: string, server: DocServer): { env: NodeJS.ProcessEnv } {
  const hostPort = (url: string) => url.replace(/^https?:\/\//, '');
  const bin = path.join(dir, '.doc-bin');
  fs.mkdirSync(bin, { recursive: true });
  const cli = path.join(ROOT, 'dist/cli.js');
  // `stratus serve` stands for the running server; `stratus dev` goes to the background (as in a second terminal).
  fs.writeFileSync(path.join(bin, 'stratus'), `#!/usr/bin/env bash
if [ "$1" = serve ]; then echo "(doc test: stratus serve stands for the test's server at ${server.http})"; exit 0; fi
if [ "$1" = dev ]; then
  log="$DOC_FOLDER/.dev-$$.log"
  node ${JSON.stringify(cli)} "$@" >"$log" 2>&1 &
  echo $! >> "$DOC_FOLDER/.background-pids"
  for i in $(seq 1 600); do
    if grep -q 'listening on' "$log"; then cat "$log"; exit 0; fi
    if ! kill -0 $! 2>/dev/null; then cat "$log"; exit 1; fi
    sleep 0.1
  done
  echo "stratus dev did not start in 60 s"; cat "$log"; exit 1
fi
# \`stratus credentials\` reads the default data folder and (--env) names the default listeners: the test server's here.
if [ "$1" = credentials ]; then export STRATUS_HTTP=${hostPort(server.http)} STRATUS_S3=${hostPort(server.s3)} STRATUS_DATA_DIR=${JSON.stringify(server.dataDir)}; fi
exec node ${JSON.stringify(cli)} "$@"
`, { mode: 0o755 });
  const modules = path.join(dir, 'node_modules');
  fs.mkdirSync(modules, { recursive: true });
  for (const entry of fs.readdirSync(path.join(ROOT, 'node_modules'))) {
    if (entry.startsWith('.')) continue;
    fs.symlinkSync(path.join(ROOT, 'node_modules', entry), path.join(modules, entry));
  }
  fs.symlinkSync(ROOT, path.join(modules, 'stratus'));
  // Files the snippets name as the reader's own.
  fs.writeFileSync(path.join(dir, 'photo.jpg'), Buffer.from('\xff\xd8\xff\xe0 not really a photo', 'latin1'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>hello</title>\n');
  const home = path.join(dir, '.home');
  fs.mkdirSync(home, { recursive: true });
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(STRATUS_|CLOUDFLARE_|AWS_|npm_)/.test(k)));
  return {
    env: {
      ...inherited, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), DOC_FOLDER: dir,
      PATH: `${bin}:${path.join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
      WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1',
    },
  };
}

/** Bash that restores the previous snippets' session (variables, exports, folder) and saves it again after. */
function session(stateFile: string, body: string): string {
  return `npx() { "$@"; }
[ -f ${q(stateFile)} ] && source ${q(stateFile)}
__doc_base="$(compgen -v | sort)"
set -eo pipefail
${body}
__doc_status=$?
set +eo pipefail
{ for v in $(compgen -v); do
    case "$v" in BASH*|FUNCNAME|PIPESTATUS|_|__doc_*|SHLVL|PWD|OLDPWD|RANDOM|LINENO|SECONDS|EPOCH*|SRANDOM|HISTCMD|COLUMNS|LINES|GROUPS|DIRSTACK|PPID|UID|EUID|SHELLOPTS|BASHOPTS|OPTIND|OPTARG|IFS) continue;; esac
    declare -p "$v" 2>/dev/null
  done
  echo "cd $(printf %q "$PWD")"
} > ${q(stateFile)}.new
mv ${q(stateFile)}.new ${q(stateFile)}
exit $__doc_status
`;
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs one snippet (already substituted) in `dir`; shell snippets continue the document's session. */
export async function runSnippet(snippet: Snippet, text: string, dir: string, env: NodeJS.ProcessEnv, n: number): Promise<SnippetResult> {
  const state = path.join(dir, '.doc-session');
  let body: string;
  if (snippet.use.kind === 'run' && snippet.use.lang === 'sh') {
    body = text;
  } else {
    const source = snippet.use.kind === 'run' && snippet.use.lang === 'ts' ? (await transform(text, { loader: 'ts', format: 'esm' })).code : text;
    const file = path.join(dir, `.snippet-${n}.mjs`);
    fs.writeFileSync(file, source);
    body = `node ${q(file)}`;
  }
  const script = path.join(dir, `.snippet-${n}.sh`);
  fs.writeFileSync(script, session(state, body));
  // Output goes to a file, not to a pipe of ours: Node gives children socket pairs as pipes, and a tool that
  // shuts its stdout down (wrangler's `r2 object get --pipe`) would shut it for every later command.
  const log = path.join(dir, `.snippet-${n}.out`);
  const fd = fs.openSync(log, 'w');
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', script], { cwd: dir, env, stdio: ['ignore', fd, fd], detached: true });
    fs.closeSync(fd);
    const timer = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, SNIPPET_TIMEOUT_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal === 'SIGKILL' ? -1 : -2), output: fs.readFileSync(log, 'utf8') });
    });
  });
}

/** Longest a snippet may run. */
const SNIPPET_TIMEOUT_MS = 120_000;

/** Stops what `stratus dev` left running in `dir`. */
export function stopBackground(dir: string): void {
  const file = path.join(dir, '.background-pids');
  if (!fs.existsSync(file)) return;
  for (const pid of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    try { process.kill(Number(pid), 'SIGTERM'); } catch { /* gone */ }
  }
  fs.rmSync(file);
}
