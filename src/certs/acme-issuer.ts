/**
 * Issuing through an ACME v2 CA (`--acme-directory`) with the maintained `acme-client` library (JWS, nonces,
 * orders and polling are its), validating by DNS-01 only: each authorization's key digest is served as a TXT
 * record at `_acme-challenge.<name>` by Stratus's own DNS (challenges.ts) and removed afterwards. The CA is told
 * to check only when the value is visible: this node's DNS listener answers it, and every live node serves the
 * zone's serial that added it (serving-nodes.ts).
 *
 * An order aborted (shutdown) stops at once: its HTTP requests to the CA are cancelled (the signal reaches
 * acme-client's axios through an AsyncLocalStorage read by one request interceptor), its waits end, and it
 * settles only once its challenge records are removed.
 *
 * The ACME account key is made on first use and kept sealed in the store (`certificate_authorities`, id
 * `acme:<directory URL>`), so every node and restart uses one account.
 */
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { Resolver } from 'node:dns/promises';
import { AsyncLocalStorage } from 'node:async_hooks';
import * as acme from 'acme-client';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { SecretBox } from '../shared/secret-box.js';
import type { Clock } from '../shared/clock.js';
import type { IssuedCertificate, Issuer } from './issuer.js';
import type { ChallengeRecords } from './challenges.js';
import { newLeafKey } from './x509.js';

/** How to reach the ACME CA. */
export interface AcmeOptions {
  directoryUrl: string;
  email: string | undefined;
  /** Extra CAs (PEM) trusted for the ACME server's own HTTPS. */
  caPem: string | undefined;
  eab: { kid: string; hmacKey: string } | undefined;
}

/** Where this node's DNS answers, to see a challenge value before the CA is told. */
export interface DnsCheck {
  host: string;
  port: number;
  /** Resolves when every live node serves the zone's `serial` (serving-nodes.ts); throws why not. */
  everyNode(zoneId: string, serial: number, what: string, signal: AbortSignal): Promise<void>;
}

const CHECK_TIMEOUT_MS = 30_000;

/** The abort signal of the order whose code runs (acme-client's requests carry it). */
const orderSignal = new AsyncLocalStorage<AbortSignal>();
acme.axios.interceptors.request.use((config) => {
  const signal = orderSignal.getStore();
  if (signal) {
    signal.throwIfAborted();
    config.signal = signal;
  }
  return config;
});

/** Issues through an ACME CA by DNS-01 on Stratus's own DNS. */
export class AcmeIssuer implements Issuer {
  readonly authority = 'acme';
  private client: acme.Client | undefined;

  constructor(private readonly db: Kysely<Database>, private readonly box: SecretBox, private readonly clock: Clock, private readonly opts: AcmeOptions,
    private readonly challenges: ChallengeRecords, private readonly dns: DnsCheck) {
    if (opts.caPem) {
      // acme-client talks through its own axios instance: trust the system's CAs plus the given ones
      this.agent = new https.Agent({ ca: [...tls.rootCertificates, opts.caPem], keepAlive: false });
      acme.axios.defaults.httpsAgent = this.agent;
    }
  }

  private readonly agent: https.Agent | undefined;

  /** Fetches the directory once, so an unreachable CA fails the order at once (acme-client retries for long). */
  private probe(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const url = new URL(this.opts.directoryUrl);
      const get = url.protocol === 'http:' ? http.get : https.get;
      const req = get(url, { timeout: 10_000, ...(signal ? { signal } : {}), ...(this.agent && url.protocol === 'https:' ? { agent: this.agent } : {}) }, (res) => {
        res.resume();
        if ((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300) resolve();
        else reject(new Error(`the directory answered ${res.statusCode}`));
      });
      req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
      req.on('error', reject);
    });
  }

  private get contextId(): string {
    return `acme:${this.opts.directoryUrl}`;
  }

  private async account(): Promise<acme.Client> {
    if (this.client) return this.client;
    await this.probe(orderSignal.getStore());
    const id = this.contextId;
    let row = await this.db.selectFrom('certificate_authorities').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) {
      const key = (await acme.crypto.createPrivateEcdsaKey()).toString();
      await this.db.insertInto('certificate_authorities').values({ id, certificate_pem: null, sealed_key: this.box.seal(key, `certificate-authority/${id}`), account_url: null, created_on: this.clock.now().toISOString() })
        .onConflict((oc) => oc.column('id').doNothing()).execute();
      row = await this.db.selectFrom('certificate_authorities').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    }
    const client = new acme.Client({
      directoryUrl: this.opts.directoryUrl, accountKey: this.box.open(row.sealed_key, `certificate-authority/${id}`),
      ...(row.account_url ? { accountUrl: row.account_url } : {}), ...(this.opts.eab ? { externalAccountBinding: this.opts.eab } : {}),
      backoffAttempts: 5, backoffMin: 200, backoffMax: 2000,
    });
    if (!row.account_url) {
      await client.createAccount({ termsOfServiceAgreed: true, ...(this.opts.email ? { contact: [`mailto:${this.opts.email}`] } : {}) });
      await this.db.updateTable('certificate_authorities').set({ account_url: client.getAccountUrl() }).where('id', '=', id).execute();
    }
    this.client = client;
    return client;
  }

  /** Orders, validates by DNS-01 and downloads a certificate for `hosts`. */
  async issue(zone: { id: string; name: string }, hosts: string[], signal: AbortSignal = new AbortController().signal): Promise<IssuedCertificate> {
    return orderSignal.run(signal, () => this.order(zone, hosts, signal));
  }

  private async order(zone: { id: string; name: string }, hosts: string[], signal: AbortSignal): Promise<IssuedCertificate> {
    let client: acme.Client;
    try {
      client = await this.account();
    } catch (err) {
      this.client = undefined;
      throw new Error(`ACME account at ${this.opts.directoryUrl}: ${(err as Error).message}`);
    }
    const keyPem = newLeafKey();
    const [, csr] = await acme.crypto.createCsr({ commonName: hosts[0]!, altNames: hosts }, keyPem);
    const served = new Map<string, string>();
    const chainPem = await client.auto({
      csr, challengePriority: ['dns-01'], skipChallengeVerification: true, termsOfServiceAgreed: true, ...(this.opts.email ? { email: this.opts.email } : {}),
      challengeCreateFn: async (authz, challenge, keyAuthorization) => {
        if (challenge.type !== 'dns-01') throw new Error(`only dns-01 is supported, the CA offered ${challenge.type}`);
        signal.throwIfAborted();
        const name = `_acme-challenge.${authz.identifier.value}`;
        const { id, serial } = await this.challenges.add(zone.id, name, keyAuthorization);
        served.set(`${challenge.url}`, id);
        await this.visible(name, keyAuthorization, signal);
        await this.dns.everyNode(zone.id, serial, `the challenge record ${name}`, signal);
      },
      challengeRemoveFn: async (_authz, challenge) => {
        const id = served.get(`${challenge.url}`);
        if (id) { served.delete(`${challenge.url}`); await this.challenges.remove(zone.id, id); }
      },
    }).finally(async () => {
      for (const id of served.values()) await this.challenges.remove(zone.id, id).catch(() => {});
    });
    return { chainPem, keyPem };
  }

  /** Waits until this node's DNS listener answers the value. */
  private async visible(name: string, value: string, signal: AbortSignal): Promise<void> {
    if (this.dns.port > 0) {
      const resolver = new Resolver({ timeout: 1000, tries: 1 });
      const host = this.dns.host === '0.0.0.0' || this.dns.host === '' ? '127.0.0.1' : this.dns.host === '::' ? '::1' : this.dns.host;
      resolver.setServers([host.includes(':') ? `[${host}]:${this.dns.port}` : `${host}:${this.dns.port}`]);
      const end = Date.now() + CHECK_TIMEOUT_MS;
      for (;;) {
        const found = await resolver.resolveTxt(name).then((rs) => rs.some((r) => r.join('') === value), () => false);
        if (found) break;
        signal.throwIfAborted();
        if (Date.now() > end) throw new Error(`the challenge record ${name} did not appear in this node's DNS answers`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
}
