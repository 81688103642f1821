/**
 * Test certificates made with `openssl`: a throwaway CA and server certificates it signs for 127.0.0.1 and
 * localhost, each with a chosen serial number, so that a test can tell which one a listener serves.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** A certificate and its key, as PEM files. */
export interface PemPair {
  cert: string;
  key: string;
  /** The serial as `X509Certificate.serialNumber` shows it (hex, upper case). */
  serial: string;
}

const openssl = (args: string[], cwd: string) => execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

/** Creates a CA in `dir` (ca.pem, ca.key); returns the CA certificate's path. */
export function makeCa(dir: string): string {
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem',
    '-days', '2', '-subj', '/CN=Stratus Test CA'], dir);
  return path.join(dir, 'ca.pem');
}

/** A server certificate for 127.0.0.1 and localhost signed by the CA of `dir`, with this serial (hex). */
export function makeServerCert(dir: string, name: string, serialHex: string): PemPair {
  const ext = path.join(dir, `${name}.ext`);
  fs.writeFileSync(ext, 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', '/CN=localhost'], dir);
  openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', `0x${serialHex}`, '-days', '2',
    '-out', `${name}.pem`, '-extfile', ext], dir);
  return { cert: path.join(dir, `${name}.pem`), key: path.join(dir, `${name}.key`), serial: serialHex.toUpperCase() };
}
