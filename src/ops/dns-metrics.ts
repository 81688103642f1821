/**
 * The DNS server's counters (dns-server/query-stats.ts, summed over the main thread and the DNS thread) as
 * Prometheus metrics, read at scrape time: queries by transport, query type and rcode; latency per transport;
 * truncated answers; zone transfers (AXFR/IXFR questions) by rcode.
 */
import type { Registry } from 'prom-client';
import { LATENCY_BOUNDS, QTYPES, RCODES, TRANSPORTS, queryStats } from '../dns-server/query-stats.js';

type Sample = { labels: Record<string, string | number>; value: number; metricName?: string };

/** A metric whose samples are computed when scraped. */
function computed(r: Registry, name: string, help: string, type: 'counter' | 'histogram', samples: () => Sample[]): void {
  r.registerMetric({
    name, help, type,
    get: async () => ({ name, help, type, values: samples(), aggregator: 'sum' }),
    reset: () => {},
  } as never);
}

/** Registers the DNS metrics (once per process; metrics.ts). */
export function registerDnsMetrics(r: Registry): void {
  computed(r, 'stratus_dns_queries_total', 'DNS messages answered, by transport, query type and rcode (dropped: no answer sent).', 'counter', () => {
    const out: Sample[] = [];
    const q = queryStats.counts.queries;
    TRANSPORTS.forEach((transport, t) => QTYPES.forEach((qtype, y) => RCODES.forEach((rcode, c) => {
      const value = q[(t * QTYPES.length + y) * RCODES.length + c]!;
      if (value > 0 || (qtype === 'A' && rcode === 'NOERROR')) out.push({ labels: { transport, qtype, rcode }, value });
    })));
    return out;
  });
  computed(r, 'stratus_dns_truncated_total', 'Answers sent with TC set (too big for the client\'s UDP size), by transport.', 'counter', () =>
    TRANSPORTS.map((transport, t) => ({ labels: { transport }, value: queryStats.counts.truncated[t]! })));
  computed(r, 'stratus_dns_transfers_total', 'Zone transfer requests (AXFR, IXFR) by type and rcode (NOERROR: sent).', 'counter', () => {
    const out: Sample[] = [];
    const q = queryStats.counts.queries;
    for (const qtype of ['AXFR', 'IXFR'] as const) {
      const y = QTYPES.indexOf(qtype);
      RCODES.forEach((rcode, c) => {
        let value = 0;
        for (let t = 0; t < TRANSPORTS.length; t++) value += q[(t * QTYPES.length + y) * RCODES.length + c]!;
        if (value > 0 || rcode === 'NOERROR') out.push({ labels: { type: qtype, rcode }, value });
      });
    }
    return out;
  });
  computed(r, 'stratus_dns_query_duration_seconds', 'Time from a DNS message\'s arrival in the handler to its answer.', 'histogram', () => {
    const out: Sample[] = [];
    const { latency, latencySum } = queryStats.counts;
    TRANSPORTS.forEach((transport, t) => {
      let cumulative = 0;
      const base = t * (LATENCY_BOUNDS.length + 1);
      LATENCY_BOUNDS.forEach((le, b) => {
        cumulative += latency[base + b]!;
        out.push({ metricName: 'stratus_dns_query_duration_seconds_bucket', labels: { transport, le }, value: cumulative });
      });
      cumulative += latency[base + LATENCY_BOUNDS.length]!;
      out.push({ metricName: 'stratus_dns_query_duration_seconds_bucket', labels: { transport, le: '+Inf' }, value: cumulative });
      out.push({ metricName: 'stratus_dns_query_duration_seconds_sum', labels: { transport }, value: latencySum[t]! });
      out.push({ metricName: 'stratus_dns_query_duration_seconds_count', labels: { transport }, value: cumulative });
    });
    return out;
  });
}
