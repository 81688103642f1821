/**
 * Access lines of DNS queries, at most `perSecond` a second per process; the queries beyond that are only
 * counted, and a line per second says how many went unlogged (every query is in the metrics either way).
 * Why a limit: writing a log line costs about as much as answering a query from the packet cache (measured
 * ~16 µs each on the 2-core CI machine), so logging every query at 50,000 queries a second would halve what
 * the server answers and write megabytes a second (docs/operations.md, "Logs").
 */
import type { Logger } from '../shared/logger.js';
import { decodeMessage } from '../dns/wire/message.js';
import { qtypeIndex, rcodeIndex, QTYPES, RCODES } from './query-stats.js';
import type { QueryOrigin, Responses } from './query-types.js';

const OPCODES = ['QUERY', 'IQUERY', 'STATUS', 'OPCODE3', 'NOTIFY', 'UPDATE'];

/** Rate-limited query access lines. */
export class QueryLog {
  /**
   * The current second's window: [0] its start (ms), [1] lines written in it, [2] queries skipped. A typed
   * array so the native UDP path (native-udp.ts) reads it, and counts as skipped the hits it does not hand over.
   */
  readonly state = new Float64Array(3);
  private readonly logger: Logger;

  constructor(logger: Logger, readonly perSecond: number, private readonly now: () => number = Date.now) {
    this.logger = logger.child({ component: 'access', listener: 'dns' });
  }

  /** True when lines are written at all (a rate above 0 and the info level on). */
  get active(): boolean {
    return this.perSecond > 0 && this.logger.isLevelEnabled('info');
  }

  /** Logs the query unless this second's lines are used up (then it is counted as skipped). */
  offer(query: Uint8Array, responses: Responses, from: QueryOrigin, seconds: number): void {
    if (!this.active) return;
    const now = this.now();
    const s = this.state;
    if (now - s[0]! >= 1000) {
      const skipped = s[2]!;
      if (skipped > 0) this.logger.info({ skipped, limit: this.perSecond }, `${skipped} queries not logged (over --dns-log-rate)`);
      s[0] = now;
      s[1] = 0;
      s[2] = 0;
    }
    if (s[1]! >= this.perSecond) { s[2]! += 1; return; }
    s[1]! += 1;
    const first = responses[0];
    const method = query.length >= 3 ? OPCODES[(query[2]! >> 3) & 0x0f] ?? `OPCODE${(query[2]! >> 3) & 0x0f}` : 'unknown';
    const route = QTYPES[qtypeIndex(query)]!;
    const status = first ? RCODES[rcodeIndex(first)]! : 'dropped';
    const bytes = responses.reduce((n, r) => n + r.length, 0);
    this.logger.info({
      method, route, status, bytes, durationMs: round(seconds * 1000), transport: from.transport, remote: from.address,
      name: questionName(query), id: query.length >= 2 ? (query[0]! << 8) | query[1]! : undefined,
    }, `${method} ${route} ${status}`);
  }
}

function questionName(query: Uint8Array): string | undefined {
  try {
    return decodeMessage(query).questions[0]?.name;
  } catch {
    return undefined;
  }
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
