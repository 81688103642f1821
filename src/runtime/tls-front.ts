/**
 * Keeps what nginx ends TLS for (`front/tls-config.ts`) true to the certificate store and the zones' settings:
 * every name a certificate covers, with the certificate `CertificateSource.lookup` picks for it (a custom one
 * before a universal one, an exact name before a wildcard), the TLS version range of its zone
 * (`min_tls_version`, `tls_1_3`) and its HSTS headers (`security_header`, unless `ssl` is off).
 * Left to Node's HTTPS listener (`https-edge.ts`): names without a certificate in the store (the `--tls-cert`
 * fallback, or a handshake failure), zones with `automatic_https_rewrites` on (HTML bodies are rewritten
 * there) and zones with `ssl` off (their HTTPS requests are redirected to http:// by the supervisor, which the
 * fast path would skip).
 *
 * Compiled again when the certificates change (issuance, renewal, upload, deletion, on any node: the source's
 * notice), when a zone's settings change (the policies' notice, this node's changes and the serials they poll)
 * and every {@link REFRESH_MS}. A compile reads the settings of only the zones that changed
 * (`edge/zone-policy-index.ts`: the active zones are listed, without their settings, when zones came or went and
 * every {@link REFRESH_MS}, for changes made on other nodes). nginx reloads gracefully (new connections get the new certificate, open ones
 * finish), so a renewal needs no restart. Each certificate's chain and key are written to a file of nginx's
 * private folder (mode 0600, named by a hash of their content), removed once no configuration names it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { CertificateSource, ServedCertificate } from '../edge/certificates.js';
import { tlsRange, type ZonePolicies } from '../edge/zone-policy.js';
import { ZonePolicyIndex } from '../edge/zone-policy-index.js';
import type { Logger } from '../shared/logger.js';
import type { TlsName } from './front/tls-config.js';
import type { NginxTlsFront } from './edge-options.js';

/** How often the names are compiled again without a notice (ms). */
const REFRESH_MS = 30_000;

/** Options of {@link TlsFront}. */
export interface TlsFrontOptions {
  certificates: CertificateSource;
  policies: ZonePolicies;
  front: NginxTlsFront;
  /** Folder for the certificate files (private). */
  dir: string;
  logger: Logger;
}

/** The compiler of nginx's TLS names. */
export class TlsFront {
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private readonly unsubscribe: (() => void)[];
  private readonly timer: NodeJS.Timeout;
  private written = new Set<string>();
  private readonly index: ZonePolicyIndex;

  constructor(private readonly opts: TlsFrontOptions) {
    fs.mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    this.index = new ZonePolicyIndex(opts.policies);
    this.unsubscribe = [
      opts.certificates.onChange(() => void this.compile()),
      opts.policies.onChange((change) => { this.index.changed(change); void this.compile(); }),
    ];
    this.timer = setInterval(() => { this.index.relist(); void this.compile(); }, REFRESH_MS);
    this.timer.unref();
  }

  /** Compiles the names and hands them to nginx (one run at a time; a notice during a run runs it again). */
  compile(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.once();
        } catch (err) {
          this.opts.logger.warn({ err }, 'edge TLS: cannot compile the names nginx serves; the last ones stay');
        }
      } while (this.again && !this.closed);
    })().finally(() => { this.running = undefined; });
    return this.running;
  }

  private async once(): Promise<void> {
    const source = this.opts.certificates;
    const keys = [...new Set(source.all().flatMap((c) => c.hosts.map((h) => h.toLowerCase())))].sort();
    const names: TlsName[] = [];
    const files = new Set<string>();
    const policies = await this.index.resolve(keys);
    if (this.closed) return;
    for (const name of keys) {
      const cert = source.lookup(name);
      if (!cert) continue;
      const policy = policies.get(name);
      // Node rewrites the zone's HTML; with ssl off the supervisor redirects HTTPS requests (never the fast path)
      if (policy?.httpsRewrites || policy?.ssl === 'off') continue;
      const certFile = this.fileOf(cert);
      files.add(certFile);
      const hsts = policy?.httpsHeaders['strict-transport-security'];
      names.push({ name, certFile, range: tlsRange(policy), hsts, nosniff: policy?.httpsHeaders['x-content-type-options'] === 'nosniff' });
    }
    this.opts.front.setNames({ names });
    for (const f of this.written) if (!files.has(f)) fs.rmSync(f, { force: true });
    this.written = files;
  }

  /** The file of a certificate's chain and key (written once per content). */
  private fileOf(cert: ServedCertificate): string {
    const text = `${cert.certificatePem.trim()}\n${cert.privateKeyPem.trim()}\n`;
    const file = path.join(this.opts.dir, `${crypto.createHash('sha256').update(text).digest('hex').slice(0, 32)}.pem`);
    if (!this.written.has(file) && !fs.existsSync(file)) fs.writeFileSync(file, text, { mode: 0o600 });
    return file;
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const u of this.unsubscribe) u();
  }
}
