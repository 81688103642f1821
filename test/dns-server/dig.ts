/** Runs `dig` (or `kdig`) against a local server and parses its answer (status, flags, answer, authority). */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A parsed dig answer. */
export interface DigResult {
  status: string;
  flags: string[];
  /** Answer records as `name ttl class type rdata`, whitespace collapsed. */
  answer: string[];
  authority: string[];
  additional: string[];
  raw: string;
}

/** Options of {@link dig}. */
export interface DigOptions {
  tcp?: boolean;
  tool?: 'dig' | 'kdig';
  extra?: string[];
}

function section(raw: string, title: string): string[] {
  const lines = raw.split('\n');
  const out: string[] = [];
  let on = false;
  for (const line of lines) {
    if (/^;; [A-Z ]+SECTION:/.test(line)) { on = line.includes(`${title} SECTION`); continue; }
    if (!on) continue;
    if (line.trim() === '' || line.startsWith(';;')) { on = false; continue; }
    out.push(line.trim().split(/\s+/).join(' '));
  }
  return out;
}

/** Queries `name`/`type` at 127.0.0.1:port. */
export async function dig(port: number, name: string, type: string, opts: DigOptions = {}): Promise<DigResult> {
  const tool = opts.tool ?? 'dig';
  const args = tool === 'dig'
    ? ['@127.0.0.1', '-p', String(port), '+norec', '+time=3', '+tries=2', '+nocookie', ...(opts.tcp ? ['+tcp'] : []), ...(opts.extra ?? []), name, type]
    : ['@127.0.0.1', '-p', String(port), '+norec', '+time=3', '+retry=1', ...(opts.tcp ? ['+tcp'] : []), ...(opts.extra ?? []), name, type];
  const { stdout } = await run(tool, args, { timeout: 15_000 });
  const status = /status: ([A-Z]+)/.exec(stdout)?.[1] ?? 'NONE';
  const flags = (/;; flags: ([a-z ]+)[;:]/.exec(stdout)?.[1] ?? '').trim().split(/\s+/).filter(Boolean);
  return { status, flags, answer: section(stdout, 'ANSWER'), authority: section(stdout, 'AUTHORITY'), additional: section(stdout, 'ADDITIONAL'), raw: stdout };
}
