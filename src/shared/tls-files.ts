/**
 * TLS for the v4 API and S3 listeners (`--tls-cert`, `--tls-key`): the PEM files are read and checked
 * together (a certificate chain, its private key, and that they belong together) before a listener uses them.
 * At start a bad or missing file is one line naming the flag and the problem (the CLI exits 2); on SIGHUP
 * the files are read again and, only when they are good, every TLS listener takes them for new connections
 * (`server.setSecureContext`: connections already open keep theirs and are not dropped).
 */
import fs from 'node:fs';
import tls from 'node:tls';
import { X509Certificate } from 'node:crypto';

/** Where the PEM files are. */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** A checked certificate chain and key, ready for `https.createServer` / `setSecureContext`. */
export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
  /** Serial number of the leaf certificate (hex, upper case), for the log line of a reload. */
  serial: string;
  /** Its expiry (`validTo`). */
  validTo: string;
}

/** A certificate or key that cannot be used; the message names the flag and file. */
export class TlsFileError extends Error {
  override name = 'TlsFileError';
}

function readFile(flag: string, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'cannot be read by this user' : code === 'EISDIR' ? 'is a folder' : (err as Error).message;
    throw new TlsFileError(`--${flag} ${file} ${why}: give a PEM file`);
  }
}

/** Reads and checks the certificate and key (throws {@link TlsFileError} with one line). */
export function readTlsMaterial(files: TlsFiles): TlsMaterial {
  const cert = readFile('tls-cert', files.certFile);
  const key = readFile('tls-key', files.keyFile);
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert);
  } catch {
    throw new TlsFileError(`--tls-cert ${files.certFile} is not a PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  try {
    tls.createSecureContext({ cert, key });
  } catch (err) {
    const message = (err as Error).message;
    if (/key values mismatch/i.test(message)) throw new TlsFileError(`--tls-key ${files.keyFile} is not the private key of the certificate in ${files.certFile}`);
    throw new TlsFileError(`--tls-key ${files.keyFile} is not a usable PEM private key (${message.replace(/^error:[0-9A-F]+:/i, '').split('\n')[0]})`);
  }
  return { cert, key, serial: leaf.serialNumber.toUpperCase(), validTo: leaf.validTo };
}

/** A listener whose certificate can be replaced for new connections. */
export interface SecureContextTarget {
  setSecureContext(options: tls.SecureContextOptions): void;
}

/**
 * Reads the files again and hands them to every listener; returns the new material, or throws
 * {@link TlsFileError} leaving every listener with its current certificate.
 */
export function reloadTls(files: TlsFiles, listeners: readonly SecureContextTarget[]): TlsMaterial {
  const material = readTlsMaterial(files);
  for (const l of listeners) l.setSecureContext({ cert: material.cert, key: material.key });
  return material;
}
