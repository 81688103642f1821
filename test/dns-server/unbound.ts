/**
 * A validating resolver for tests: Debian's unbound on a free port, with stub zones pointing at a local
 * authoritative server and trust anchors (DS lines) given by the test. Validation failures are logged to its
 * log file (val-log-level 2), read back on failure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.js';
import { dig } from './dig.js';

/** A running unbound. */
export interface Unbound {
  port: number;
  log(): string;
  stop(): Promise<void>;
}

/** Starts unbound with a stub zone per `zones` name (all at 127.0.0.1:`authPort`) and these DS trust anchors. */
export async function startUnbound(authPort: number, zones: readonly string[], anchors: readonly string[]): Promise<Unbound> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-unbound-'));
  const port = await freePort();
  const conf = [
    'server:',
    `  interface: 127.0.0.1`,
    `  port: ${port}`,
    '  do-daemonize: no',
    '  username: ""',
    '  chroot: ""',
    `  directory: "${dir}"`,
    `  pidfile: "${dir}/unbound.pid"`,
    `  logfile: "${dir}/unbound.log"`,
    '  use-syslog: no',
    '  verbosity: 1',
    '  val-log-level: 2',
    '  do-ip6: no',
    '  do-not-query-localhost: no',
    '  qname-minimisation: no',
    '  module-config: "validator iterator"',
    '  access-control: 127.0.0.0/8 allow',
    '  num-threads: 1',
    '  so-reuseport: no',
    '  remote-control:',
    ...anchors.map((a) => `  trust-anchor: "${a}"`),
    ...zones.flatMap((z) => ['stub-zone:', `  name: "${z}."`, `  stub-addr: 127.0.0.1@${authPort}`]),
  ].filter((l) => l !== '  remote-control:').join('\n');
  fs.writeFileSync(path.join(dir, 'unbound.conf'), `${conf}\n`);
  const child: ChildProcess = spawn('/usr/sbin/unbound', ['-d', '-c', path.join(dir, 'unbound.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  const log = () => `${stderr}\n${fs.existsSync(path.join(dir, 'unbound.log')) ? fs.readFileSync(path.join(dir, 'unbound.log'), 'utf8') : ''}`;
  // Ready once it answers (a name of no zone: REFUSED or SERVFAIL both mean it is up).
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`unbound exited: ${log()}`);
    try {
      await dig(port, 'localhost', 'A', { extra: ['+time=1', '+tries=1'] });
      break;
    } catch (err) {
      if (i > 60) throw new Error(`unbound did not answer: ${log()} ${String(err)}`);
    }
  }
  return {
    port,
    log,
    async stop() {
      if (child.exitCode === null) {
        const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await done;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
