/**
 * Counters of the DNS queries one process answered, cheap enough for every query: plain typed arrays indexed
 * by transport, query type and rcode, a latency histogram per transport, truncations and zone transfers. The
 * main process exposes them as metrics (ops/dns-metrics.ts); the DNS thread posts its counts to the main
 * thread every second ({@link QueryStats.drain} / {@link QueryStats.add}) and starts again from zero.
 *
 * Labels stay bounded: query types outside {@link QTYPES} count as `other`; rcodes are the 4-bit header code,
 * except BADVERS (16), which is read from the OPT record of the only response that carries it.
 */
import { TYPE } from '../dns/wire/constants.js';
import { questionNameEnd } from './packet-cache.js';

/** Query types counted by name; anything else is `other`. */
export const QTYPES = ['A', 'NS', 'CNAME', 'SOA', 'PTR', 'HINFO', 'MX', 'TXT', 'AAAA', 'LOC', 'SRV', 'NAPTR', 'CERT', 'DS', 'SSHFP',
  'RRSIG', 'NSEC', 'DNSKEY', 'TLSA', 'SMIMEA', 'OPENPGPKEY', 'SVCB', 'HTTPS', 'IXFR', 'AXFR', 'ANY', 'URI', 'CAA', 'other'] as const;
/** Rcode names by value (17: no response was sent, e.g. a response or an unreadable header). */
export const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED', 'YXDOMAIN', 'YXRRSET', 'NXRRSET', 'NOTAUTH',
  'NOTZONE', 'RCODE11', 'RCODE12', 'RCODE13', 'RCODE14', 'RCODE15', 'BADVERS', 'dropped'] as const;
export const TRANSPORTS = ['udp', 'tcp'] as const;
/** Upper bounds (seconds) of the latency buckets; the last bucket is +Inf. */
export const LATENCY_BOUNDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

const DROPPED = RCODES.length - 1;
const OTHER = QTYPES.length - 1;
/** Index in {@link QTYPES} of every query type (the native UDP path counts with it too). */
export const TYPE_INDEX = new Int8Array(65_536).fill(OTHER);
for (const [i, name] of QTYPES.entries()) if (name !== 'other') TYPE_INDEX[TYPE[name as keyof typeof TYPE]] = i;

/** Plain numbers of a {@link QueryStats}, as shipped between processes. */
export interface QueryCounts {
  /** [transport][qtype][rcode], flattened. */
  queries: Float64Array;
  truncated: Float64Array;
  /** [transport][bucket] (non-cumulative), flattened; then the sum of seconds per transport. */
  latency: Float64Array;
  latencySum: Float64Array;
}

/** Query counters of one process. */
export class QueryStats {
  counts: QueryCounts = QueryStats.empty();

  /** Zeroed counters. */
  static empty(): QueryCounts {
    return {
      queries: new Float64Array(TRANSPORTS.length * QTYPES.length * RCODES.length),
      truncated: new Float64Array(TRANSPORTS.length),
      latency: new Float64Array(TRANSPORTS.length * (LATENCY_BOUNDS.length + 1)),
      latencySum: new Float64Array(TRANSPORTS.length),
    };
  }

  /** Counts one query and its first response message (none: dropped), answered in `seconds`. */
  record(query: Uint8Array, response: Uint8Array | undefined, transport: 'udp' | 'tcp', seconds: number): void {
    const t = transport === 'udp' ? 0 : 1;
    const c = this.counts;
    c.queries[(t * QTYPES.length + qtypeIndex(query)) * RCODES.length + (response ? rcodeIndex(response) : DROPPED)]! += 1;
    if (response && response.length >= 3 && (response[2]! & 0x02) !== 0) c.truncated[t]! += 1;
    let b = 0;
    while (b < LATENCY_BOUNDS.length && seconds > LATENCY_BOUNDS[b]!) b++;
    c.latency[t * (LATENCY_BOUNDS.length + 1) + b]! += 1;
    c.latencySum[t]! += seconds;
  }

  /** The counts so far, and zero from now on (a worker ships them to the main process). */
  drain(): QueryCounts {
    const out = this.counts;
    this.counts = QueryStats.empty();
    return out;
  }

  /** Adds counts shipped by another process. */
  add(other: QueryCounts): void {
    const c = this.counts;
    for (const k of ['queries', 'truncated', 'latency', 'latencySum'] as const) {
      const into = c[k];
      const from = other[k];
      for (let i = 0; i < into.length && i < from.length; i++) into[i]! += from[i]!;
    }
  }

  /** True when nothing was counted since the last drain. */
  get idle(): boolean {
    return this.counts.latencySum.every((v) => v === 0) && this.counts.latency.every((v) => v === 0);
  }
}

/** The query type of a message's first question (`other` when unreadable or not in {@link QTYPES}). */
export function qtypeIndex(buf: Uint8Array): number {
  if (buf.length < 12 || (((buf[4]! << 8) | buf[5]!) === 0)) return OTHER;
  const end = questionNameEnd(buf);
  if (end < 0 || end + 2 > buf.length) return OTHER;
  return TYPE_INDEX[(buf[end]! << 8) | buf[end + 1]!]!;
}

/** The rcode of a response: the header's 4 bits, or BADVERS from an answer holding nothing but its OPT record. */
export function rcodeIndex(res: Uint8Array): number {
  if (res.length < 12) return DROPPED;
  const low = res[3]! & 0x0f;
  // BADVERS (RFC 6891 §6.1.3): header rcode 0, upper 8 bits in the OPT TTL; such a reply has no records but the OPT.
  if (low !== 0 || res[6]! | res[7]! | res[8]! | res[9]! || res[10] !== 0 || res[11] !== 1) return low;
  const q = ((res[4]! << 8) | res[5]!) === 0 ? 12 : questionNameEnd(res) + 4;
  if (q < 12 || q + 6 > res.length || res[q] !== 0 || res[q + 1] !== 0 || res[q + 2] !== 41) return low;
  const extended = (res[q + 5]! << 4) | low;
  return extended === 16 ? 16 : low;
}

/** The counters of this process (the DNS handler records into it). */
export const queryStats = new QueryStats();
