/**
 * Loads the transfer policies of every zone with outgoing settings from the database (TSIG secrets opened with
 * the secrets key) and loads them again when they change: at once for writes of this process (change-signal.ts),
 * within the poll interval for other nodes' (the secondary DNS serial, bumped by every write). Timers are
 * unref'd and stopped by {@link TransferPolicyStore.close}.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Logger } from '../shared/logger.js';
import { SecretBox } from '../shared/secret-box.js';
import { tsigSealContext } from './account-objects.js';
import { onSecondaryDnsChange } from './change-signal.js';
import { keyLookupName, type PolicyKey, type TransferPolicies } from './transfer-policy.js';

/** Reads every enforced policy. */
export async function loadTransferPolicies(db: Kysely<Database>, box: SecretBox | undefined, logger: Logger): Promise<TransferPolicies> {
  const outgoing = await db.selectFrom('secondary_dns_outgoing').selectAll().execute();
  const incoming = await db.selectFrom('secondary_dns_incoming').select(['zone_id', 'account_id', 'peers']).execute();
  if (outgoing.length === 0 && incoming.length === 0) return {};
  const accounts = [...new Set([...outgoing, ...incoming].map((o) => o.account_id))];
  const [peers, acls, tsigs] = await Promise.all([
    db.selectFrom('secondary_dns_peers').selectAll().where('account_id', 'in', accounts).execute(),
    db.selectFrom('secondary_dns_acls').selectAll().where('account_id', 'in', accounts).execute(),
    db.selectFrom('secondary_dns_tsigs').selectAll().where('account_id', 'in', accounts).execute(),
  ]);
  const keys = new Map<string, PolicyKey & { account: string }>();
  for (const t of tsigs) {
    if (!box) continue;
    try {
      keys.set(t.id, { account: t.account_id, name: t.name, algorithm: t.algo, secret: box.open(t.secret_sealed, tsigSealContext(t.id)) });
    } catch (err) {
      logger.error({ err, tsig: t.id }, 'a TSIG secret does not open with this secrets key; the key is not used');
    }
  }
  const out: TransferPolicies = {};
  for (const o of outgoing) {
    const ids = new Set(JSON.parse(o.peers) as string[]);
    out[o.zone_id] = {
      enabled: o.enabled === 1,
      peers: peers.filter((p) => ids.has(p.id)).map((p) => {
        const key = p.tsig_id ? keys.get(p.tsig_id) : undefined;
        return {
          ...(p.ip !== null ? { ip: p.ip } : {}),
          port: p.port ?? 53,
          ixfr: p.ixfr_enable === 1,
          // A peer whose key does not open must not fall back to unsigned transfers: it names a key nobody has.
          ...(p.tsig_id ? { keyName: key ? keyLookupName(key.name) : `unopened-key-${p.tsig_id}` } : {}),
        };
      }),
      aclRanges: acls.filter((a) => a.account_id === o.account_id).map((a) => a.ip_range),
      keys: [...keys.values()].filter((k) => k.account === o.account_id).map(({ name, algorithm, secret }) => ({ name, algorithm, secret })),
    };
  }
  // A secondary zone takes NOTIFY from its primaries' addresses; without outgoing settings it keeps the defaults.
  for (const i of incoming) {
    const ids = new Set(JSON.parse(i.peers) as string[]);
    const primaries = peers.filter((p) => ids.has(p.id) && p.ip !== null).map((p) => p.ip!);
    const accountKeys = [...keys.values()].filter((k) => k.account === i.account_id).map(({ name, algorithm, secret }) => ({ name, algorithm, secret }));
    out[i.zone_id] = out[i.zone_id] ? { ...out[i.zone_id]!, primaries } : { defaults: true, primaries, enabled: true, peers: [], aclRanges: [], keys: accountKeys };
  }
  return out;
}

/** Keeps the policies current and tells `onChange` of each new set. */
export class TransferPolicyStore {
  private timer: NodeJS.Timeout | undefined;
  private serial: string | undefined;
  private loading: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private readonly unsubscribe: () => void;
  /** The policies last loaded. */
  current: TransferPolicies = {};

  constructor(
    private readonly db: Kysely<Database>,
    private readonly box: SecretBox | undefined,
    private readonly logger: Logger,
    private readonly onChange: (p: TransferPolicies) => void,
  ) {
    this.unsubscribe = onSecondaryDnsChange(() => void this.reload());
  }

  /** Loads now (waits for the load). */
  async reload(): Promise<void> {
    if (this.closed) return;
    if (this.loading) { this.again = true; return this.loading; }
    this.loading = (async () => {
      do {
        this.again = false;
        try {
          const row = await this.db.selectFrom('secondary_dns_serial').select('serial').where('id', '=', 1).executeTakeFirst();
          this.serial = String(row?.serial ?? 0);
          this.current = await loadTransferPolicies(this.db, this.box, this.logger);
          if (!this.closed) this.onChange(this.current);
        } catch (err) {
          this.logger.error({ err }, 'loading the zone transfer settings failed');
        }
      } while (this.again && !this.closed);
    })().finally(() => { this.loading = undefined; });
    return this.loading;
  }

  /** Polls the serial every `ms` (0: never) for other nodes' changes. */
  startPolling(ms: number): void {
    if (ms <= 0) return;
    const tick = async () => {
      try {
        const row = await this.db.selectFrom('secondary_dns_serial').select('serial').where('id', '=', 1).executeTakeFirst();
        if (String(row?.serial ?? 0) !== this.serial) await this.reload();
      } catch (err) {
        this.logger.warn({ err }, 'polling the zone transfer settings failed');
      }
      if (!this.closed) { this.timer = setTimeout(() => void tick(), ms); this.timer.unref(); }
    };
    this.timer = setTimeout(() => void tick(), ms);
    this.timer.unref();
  }

  /** Stops polling and listening. */
  close(): void {
    this.closed = true;
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
  }
}
