/**
 * The certificate room on one node: storage, the issuer (ACME when `--acme-directory` is given, else the local
 * CA), DNS-01 challenge records, the issuance loop and the served set the edge reads. `startCertificates` wires
 * them; `close()` stops every timer.
 */
import fs from 'node:fs';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { CertificatesConfig } from '../config/config.js';
import type { SecretBox } from '../shared/secret-box.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { ZoneChangeFeed } from '../zones/change-feed.js';
import { CertificateStore } from './cert-store.js';
import { ChallengeRecords } from './challenges.js';
import { LocalCaIssuer } from './local-ca.js';
import { AcmeIssuer } from './acme-issuer.js';
import type { Issuer } from './issuer.js';
import { DEFAULT_TIMING, IssuanceLoop } from './issuance-loop.js';
import { ServedCertificates } from './served-certificates.js';
import { SERVING_TIMING, ServingNodes } from './serving-nodes.js';

/** Options of {@link startCertificates}. */
export interface CertificatesOptions {
  db: Kysely<Database>;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  changeFeed: ZoneChangeFeed;
  config: CertificatesConfig;
  /** This node's DNS listener (challenge values are checked there before the CA is told). */
  dns: { host: string; port: number };
  /** The zone serial this node's DNS serves (undefined: not served); recorded for challenges (serving-nodes.ts). */
  servedSerial: (zoneId: string) => number | undefined;
}

/** The running certificate room. */
export interface Certificates {
  store: CertificateStore;
  served: ServedCertificates;
  /** Which CA issues (`acme` or `stratus_local`). */
  authority: string;
  /** Something changed on this node: serve it now and scan for work. */
  changed(): Promise<void>;
  close(): Promise<void>;
}

/** Challenge values older than this are left-overs of a node that died mid-validation. */
const CHALLENGE_MAX_AGE_MS = 3_600_000;

/** Starts the certificate room. */
export async function startCertificates(opts: CertificatesOptions): Promise<Certificates> {
  const log = opts.logger.child({ component: 'certificates' });
  const store = new CertificateStore(opts.db, opts.box, opts.clock);
  const challenges = new ChallengeRecords(opts.db, opts.changeFeed);
  const c = opts.config;
  const nodes = new ServingNodes(opts.db, opts.servedSerial, { ...SERVING_TIMING, timeoutMs: c.nodeWaitMs ?? SERVING_TIMING.timeoutMs },
    (err) => log.warn({ err: (err as Error).message }, 'DNS node heartbeat failed'));
  let issuer: Issuer;
  if (c.acmeDirectory) {
    const caPem = c.acmeCaFile ? fs.readFileSync(c.acmeCaFile, 'utf8') : undefined;
    issuer = new AcmeIssuer(opts.db, opts.box, opts.clock, { directoryUrl: c.acmeDirectory, email: c.acmeEmail, caPem, eab: c.acmeEab }, challenges,
      { ...opts.dns, everyNode: (zoneId, serial, what, signal) => nodes.waitServed(zoneId, serial, what, signal) });
  } else {
    issuer = new LocalCaIssuer(opts.db, opts.box, opts.clock);
  }
  const served = new ServedCertificates(store, opts.clock, log);
  await served.start();
  const loop = new IssuanceLoop(opts.db, store, issuer, opts.clock, log, {
    renewDays: c.renewDays, tickMs: c.tickMs ?? DEFAULT_TIMING.tickMs, firstRetryMs: c.firstRetryMs ?? DEFAULT_TIMING.firstRetryMs,
    maxRetryMs: c.maxRetryMs ?? DEFAULT_TIMING.maxRetryMs, leaseMs: DEFAULT_TIMING.leaseMs,
  }, () => served.refresh());
  await challenges.sweep(CHALLENGE_MAX_AGE_MS).catch((err: unknown) => log.warn({ err: (err as Error).message }, 'could not remove old challenge records'));
  const unsubscribe = opts.changeFeed.subscribe((change) => {
    if (change.kind === 'status' || change.kind === 'created' || change.kind === 'deleted') { loop.wake(); void served.refresh().catch(() => {}); }
  });
  // Heartbeats matter only where challenges are validated: nodes issuing from an ACME CA (configured alike).
  if (c.acmeDirectory) nodes.start();
  loop.start();
  return {
    store, served, authority: issuer.authority,
    async changed() { await served.refresh(); loop.wake(); },
    async close() { unsubscribe(); served.close(); await loop.close(); await nodes.close(); },
  };
}
