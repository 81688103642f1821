/**
 * The certificates every node serves ({@link CertificateSource} of edge/certificates.ts), kept in memory with
 * their keys opened: read again at once after a change made on this node (`refresh()`), and within a second of
 * one made on another node sharing the database (a poll of the certificate serial, one indexed read of one row).
 * Certificates of zones that are not active, and expired ones, are not served.
 */
import type { CertificateSource, ServedCertificate } from '../edge/certificates.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { RetryDelay } from '../shared/retry-delay.js';
import type { CertificateStore } from './cert-store.js';

const KIND_ORDER: Record<ServedCertificate['kind'], number> = { custom: 0, advanced: 1, universal: 2, fallback: 3 };

/** The in-memory set of served certificates, indexed by name. */
export class ServedCertificates implements CertificateSource {
  private certs: ServedCertificate[] = [];
  private byName = new Map<string, ServedCertificate[]>();
  private readonly listeners = new Set<() => void>();
  private serial = -1;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private running: Promise<void> | undefined;
  private readonly delay = new RetryDelay();

  constructor(private readonly store: CertificateStore, private readonly clock: Clock, private readonly logger: Logger, private readonly pollMs = 1000) {}

  /** Loads the set and starts following the serial. */
  async start(): Promise<void> {
    await this.refresh();
    const loop = (): void => {
      if (this.closed) return;
      this.timer = setTimeout(() => { void this.poll().finally(loop); }, Math.max(this.pollMs, this.delay.waitMs()));
      this.timer.unref();
    };
    loop();
  }

  private async poll(): Promise<void> {
    try {
      if ((await this.store.serial()) !== this.serial) await this.refresh();
      this.delay.succeeded();
    } catch (err) {
      this.delay.failed();
      if (!this.closed) this.logger.warn({ err: (err as Error).message }, 'certificate poll failed');
    }
  }

  /** Reads the set again now (after a change on this node); listeners are told when it changed. */
  refresh(): Promise<void> {
    const run = (this.running ?? Promise.resolve()).then(() => this.load());
    this.running = run.catch(() => {});
    return run;
  }

  private async load(): Promise<void> {
    if (this.closed) return;
    const serial = await this.store.serial();
    const rows = await this.store.served((id, err) => this.logger.warn({ id, err: (err as Error).message }, 'certificate key does not open (secrets key?)'));
    const certs: ServedCertificate[] = rows.map(({ row, privateKeyPem }) => ({
      id: row.id, hosts: JSON.parse(row.hosts) as string[], certificatePem: row.certificate_pem, privateKeyPem, expiresOn: new Date(row.expires_on),
      kind: row.kind as ServedCertificate['kind'], priority: row.priority,
    }));
    const before = this.certs.map((c) => `${c.id}/${c.expiresOn.getTime()}/${c.priority}`).sort().join(',');
    const after = certs.map((c) => `${c.id}/${c.expiresOn.getTime()}/${c.priority}`).sort().join(',');
    const byName = new Map<string, ServedCertificate[]>();
    for (const c of certs) for (const h of c.hosts) byName.set(h, [...(byName.get(h) ?? []), c]);
    this.certs = certs;
    this.byName = byName;
    this.serial = serial;
    if (before !== after) for (const l of [...this.listeners]) { try { l(); } catch (err) { this.logger.warn({ err }, 'certificate listener failed'); } }
  }

  /** The certificate for a server name (see {@link CertificateSource.lookup}). */
  lookup(serverName: string): ServedCertificate | null {
    const name = serverName.toLowerCase().replace(/\.$/, '');
    const now = this.clock.now().getTime();
    const dot = name.indexOf('.');
    const exact = this.byName.get(name) ?? [];
    const wild = dot > 0 ? this.byName.get(`*.${name.slice(dot + 1)}`) ?? [] : [];
    let best: ServedCertificate | null = null;
    let bestRank: number[] = [];
    for (const [list, specificity] of [[exact, 0], [wild, 1]] as const) {
      for (const c of list) {
        if (c.expiresOn.getTime() <= now) continue;
        const rank = [KIND_ORDER[c.kind], c.kind === 'custom' ? c.priority : 0, specificity, -c.expiresOn.getTime()];
        if (!best || rank.some((v, i) => v !== bestRank[i]) && lessThan(rank, bestRank)) { best = c; bestRank = rank; }
      }
    }
    return best;
  }

  /** Every certificate served now (unexpired). */
  all(): ServedCertificate[] {
    const now = this.clock.now().getTime();
    return this.certs.filter((c) => c.expiresOn.getTime() > now);
  }

  /** Calls `listener` after the set changed. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops polling. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}

function lessThan(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}
