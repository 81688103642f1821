/** Debian's pebble (an ACME test CA) for the certificate tests: its own HTTPS certificate, a start resolving through a given DNS port, its roots. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { freePort } from '../dns-server/ports.js';
import { stopChild } from '../helpers/stop-child.js';

/** A pebble to start: its ports, the CA file its own HTTPS chains to, its log. */
export interface Pebble {
  acmePort: number;
  mgmtPort: number;
  /** PEM file of the CA pebble's HTTPS listener chains to (`--acme-ca-file`). */
  caFile: string;
  directory: string;
  log: string[];
  /** Starts pebble validating through the DNS server at 127.0.0.1:`dnsPort`. */
  start(dnsPort: number): void;
  /** The roots pebble issues under, written to a file; returns its path. */
  rootFile(): Promise<string>;
  stop(): Promise<void>;
}

/** Prepares a pebble in `dir` (started by {@link Pebble.start}). */
export async function preparePebble(dir: string): Promise<Pebble> {
  const ossl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ossl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=pebble test CA']);
  fs.writeFileSync(path.join(dir, 'p.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  ossl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'p.key', '-out', 'p.csr', '-subj', '/CN=localhost']);
  ossl(['x509', '-req', '-in', 'p.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '0x77', '-days', '2', '-out', 'p.pem', '-extfile', 'p.ext']);
  const acmePort = await freePort();
  const mgmtPort = await freePort();
  const caFile = path.join(dir, 'ca.pem');
  const log: string[] = [];
  let child: ChildProcess | undefined;
  return {
    acmePort, mgmtPort, caFile, log, directory: `https://127.0.0.1:${acmePort}/dir`,
    start(dnsPort) {
      fs.writeFileSync(path.join(dir, 'pebble.json'), JSON.stringify({ pebble: {
        listenAddress: `127.0.0.1:${acmePort}`, managementListenAddress: `127.0.0.1:${mgmtPort}`, certificate: path.join(dir, 'p.pem'), privateKey: path.join(dir, 'p.key'),
        httpPort: 5002, tlsPort: 5001, ocspResponderURL: '', externalAccountBindingRequired: false,
      } }));
      child = spawn('pebble', ['-config', path.join(dir, 'pebble.json'), '-dnsserver', `127.0.0.1:${dnsPort}`],
        { env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
      for (const s of [child.stdout!, child.stderr!]) s.on('data', (c: Buffer) => log.push(c.toString()));
    },
    async rootFile() {
      const roots = await new Promise<string>((resolve, reject) => {
        https.get({ host: '127.0.0.1', port: mgmtPort, path: '/roots/0', ca: fs.readFileSync(caFile) }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).toString()));
        }).on('error', reject);
      });
      const file = path.join(dir, 'pebble-root.pem');
      fs.writeFileSync(file, roots);
      return file;
    },
    async stop() { if (child) await stopChild(child); },
  };
}
