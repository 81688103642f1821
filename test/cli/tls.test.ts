/**
 * `stratus serve --tls-cert --tls-key` as an operator runs it (dist/cli.js): a missing, unreadable or
 * mismatched file stops the start with one line and exit status 2; SIGHUP serves the new certificate (its
 * serial seen by a fresh TLS handshake) without dropping an open keep-alive connection; a bad file at SIGHUP
 * keeps the current certificate and logs one line.
 */
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../dns-server/ports.js';
import { waitUntil } from '../faults/load.js';
import { runCli, startCli } from './run-cli.js';
import { makeCa, makeServerCert, type PemPair } from '../helpers/tls-certs.js';

let dir: string;
let ca: Buffer;
let first: PemPair;
let second: PemPair;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-cli-tls-'));
  ca = fs.readFileSync(makeCa(dir));
  first = makeServerCert(dir, 'first', '5b01');
  second = makeServerCert(dir, 'second', '5b02');
});
afterAll(() => { fs.rmSync(dir, { recursive: true, force: true }); });

async function serveArgs(cert: string, key: string): Promise<string[]> {
  return ['serve', '--data-dir', fs.mkdtempSync(path.join(dir, 'd-')), '--http', `127.0.0.1:${await freePort()}`, '--dns', `127.0.0.1:${await freePort()}`,
    '--s3', `127.0.0.1:${await freePort()}`, '--dns-workers', '0', '--edge', 'off', '--admin', '127.0.0.1:0', '--log-format', 'pretty',
    '--tls-cert', cert, '--tls-key', key];
}

/** The serial of the certificate a new TLS handshake with 127.0.0.1:port gets (trusting the test CA). */
function servedSerial(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
      const serial = socket.getPeerCertificate().serialNumber;
      socket.end();
      resolve(serial.toUpperCase());
    });
    socket.on('error', reject);
  });
}

/** GET /client/v4/user over `agent`: status and whether the request reused a kept-alive socket. */
function getUser(port: number, agent: https.Agent, email: string, key: string): Promise<{ status: number; reused: boolean; serial: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get({ host: '127.0.0.1', port, path: '/client/v4/user', agent, ca, servername: 'localhost', headers: { 'x-auth-email': email, 'x-auth-key': key } }, (res) => {
      const serial = (res.socket as tls.TLSSocket).getPeerCertificate().serialNumber.toUpperCase();
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, reused: req.reusedSocket, serial }));
    });
    req.on('error', reject);
  });
}

describe('stratus serve with TLS', () => {
  it('refuses a missing file, a file that is no certificate and a key of another certificate: one line, exit 2', async () => {
    const missing = await runCli(await serveArgs(path.join(dir, 'nope.pem'), first.key));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`stratus: --tls-cert ${path.join(dir, 'nope.pem')} does not exist: give a PEM file\n`);
    const notCert = await runCli(await serveArgs(first.key, first.key));
    expect(notCert.code).toBe(2);
    expect(notCert.stderr).toBe(`stratus: --tls-cert ${first.key} is not a PEM certificate (-----BEGIN CERTIFICATE-----)\n`);
    const mismatch = await runCli(await serveArgs(first.cert, second.key));
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toBe(`stratus: --tls-key ${second.key} is not the private key of the certificate in ${first.cert}\n`);
    const half = await runCli(['serve', '--tls-cert', first.cert]);
    expect(half.code).toBe(2);
    expect(half.stderr).toBe('stratus: --tls-cert needs --tls-key (its private key, PEM) as well\n');
  });

  it('SIGHUP serves the new certificate, keeps open connections, and keeps the old one when a file is bad', async () => {
    const cert = path.join(dir, 'live.pem');
    const key = path.join(dir, 'live.key');
    fs.copyFileSync(first.cert, cert);
    fs.copyFileSync(first.key, key);
    const args = [...await serveArgs(cert, key), '--auth-email', 'tls-admin@example.com', '--auth-key', 'a'.repeat(37)];
    const port = Number(args[args.indexOf('--http') + 1]!.split(':')[1]);
    const running = await startCli(args);
    try {
      expect(running.output()).toContain(`v4 API listening on https://127.0.0.1:${port}/client/v4 (HTTPS, certificate serial 5B01)`);
      expect(running.output()).toMatch(/S3 API listening on https:\/\/127\.0\.0\.1:/);
      expect(await servedSerial(port)).toBe('5B01');
      const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
      expect(await getUser(port, agent, 'tls-admin@example.com', 'a'.repeat(37))).toEqual({ status: 200, reused: false, serial: '5B01' });

      fs.copyFileSync(second.cert, cert);
      fs.copyFileSync(second.key, key);
      running.child.kill('SIGHUP');
      await waitUntil(() => running.output().includes('TLS certificate reloaded (serial 5B02'), 30_000, 'the reload line');
      expect(await servedSerial(port)).toBe('5B02');
      // The connection opened before the reload is still served, with the certificate it was opened with.
      expect(await getUser(port, agent, 'tls-admin@example.com', 'a'.repeat(37))).toEqual({ status: 200, reused: true, serial: '5B01' });
      agent.destroy();

      fs.writeFileSync(cert, 'not a certificate\n');
      running.child.kill('SIGHUP');
      await waitUntil(() => running.output().includes('TLS certificate not reloaded'), 30_000, 'the refusal line');
      const refusal = running.output().split('\n').filter((l) => l.includes('TLS certificate not reloaded'));
      expect(refusal).toHaveLength(1);
      expect(refusal[0]).toContain(`--tls-cert ${cert} is not a PEM certificate`);
      expect(await servedSerial(port)).toBe('5B02');
      expect(running.child.exitCode).toBeNull();
    } finally {
      running.child.kill('SIGTERM');
      await running.exited;
    }
  });
});
