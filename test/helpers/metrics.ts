/**
 * Reading a Stratus's `/metrics` in tests. The counters live in the process's one registry, which every server
 * a test process starts shares, and integration files share their worker processes (vitest.config.ts): a test
 * asserts what its own requests added (a value after against one before), never an absolute count.
 */

/** The value of one sample (`name{labels}` exactly as exposed, or a bare name), 0 when absent. */
export async function metricSample(adminUrl: string, sample: string): Promise<number> {
  const text = await (await fetch(`${adminUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? 0 : Number(line.slice(sample.length + 1));
}

/** The sample name of `stratus_http_requests_total` for a listener, route, method and status. */
export function httpRequests(listener: string, route: string, method: string, status: number): string {
  return `stratus_http_requests_total{listener="${listener}",route="${route}",method="${method}",status="${status}"}`;
}
