/**
 * Metrics of the HTTP listeners (v4 API, S3, edge): requests by route template, method and status, latency,
 * body bytes, requests in flight. Recorded once per request by the listener's observer (http-observer.ts), or
 * by a listener Node does not serve itself (the edge's workerd) through {@link recordHttpRequest}.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The HTTP listeners of a Stratus process. */
export type HttpListenerName = 'v4' | 's3' | 'edge';

/** One finished HTTP request, as metrics and the access log see it. */
export interface HttpRequestRecord {
  listener: HttpListenerName;
  /** Route template (`/client/v4/zones/:zone_id`) or S3 operation (`GetObject`); `unmatched` when none. */
  route: string;
  method: string;
  /** HTTP status; 499 when the client went away before the response was complete. */
  status: number;
  seconds: number;
  bytesIn: number;
  bytesOut: number;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Request latency buckets (seconds). */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

let metrics: {
  requests: Counter<'listener' | 'route' | 'method' | 'status'>;
  seconds: Histogram<'listener' | 'route' | 'method'>;
  bytesIn: Counter<'listener' | 'route'>;
  bytesOut: Counter<'listener' | 'route'>;
  inFlight: Gauge<'listener'>;
} | undefined;

/** Registers the HTTP metrics (once per process; metrics.ts). */
export function registerHttpMetrics(r: Registry): void {
  const registers = [r];
  metrics = {
    requests: new Counter({ name: 'stratus_http_requests_total', help: 'HTTP requests by listener, route template (S3: operation), method and status.', labelNames: ['listener', 'route', 'method', 'status'], registers }),
    seconds: new Histogram({ name: 'stratus_http_request_duration_seconds', help: 'From a request\'s arrival to the last byte of its response.', labelNames: ['listener', 'route', 'method'], buckets: BUCKETS, registers }),
    bytesIn: new Counter({ name: 'stratus_http_request_body_bytes_total', help: 'Request body bytes (as declared by Content-Length).', labelNames: ['listener', 'route'], registers }),
    bytesOut: new Counter({ name: 'stratus_http_response_body_bytes_total', help: 'Response body bytes written.', labelNames: ['listener', 'route'], registers }),
    inFlight: new Gauge({ name: 'stratus_http_requests_in_flight', help: 'Requests being served now.', labelNames: ['listener'], registers }),
  };
}

/** The method as a label: the standard ones, `other` for anything else a client sent. */
export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'other';
}

/** Records one finished request. */
export function recordHttpRequest(r: HttpRequestRecord): void {
  if (!metrics) return;
  const method = methodLabel(r.method);
  metrics.requests.inc({ listener: r.listener, route: r.route, method, status: String(r.status) });
  metrics.seconds.observe({ listener: r.listener, route: r.route, method }, r.seconds);
  if (r.bytesIn > 0) metrics.bytesIn.inc({ listener: r.listener, route: r.route }, r.bytesIn);
  if (r.bytesOut > 0) metrics.bytesOut.inc({ listener: r.listener, route: r.route }, r.bytesOut);
}

/** Counts a request in flight on `listener` (+1 when it arrives, -1 when it is done). */
export function httpInFlight(listener: HttpListenerName, delta: 1 | -1): void {
  metrics?.inFlight.inc({ listener }, delta);
}
