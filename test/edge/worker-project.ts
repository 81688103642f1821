/**
 * A wrangler project for end-to-end edge tests: a module Worker with a bucket binding (`BUCKET`), vars
 * (`GREETING`, `CONFIG`) and an optional secret (`API_KEY`). `PUT|GET …/object/<key>` write and read the
 * bucket; any other path answers JSON naming the script, its version, its vars and secret, the URL and the
 * client address it saw.
 */

/** What the project is made of. */
export interface WorkerProjectOptions {
  name: string;
  /** Returned as `version` by the Worker, to tell deploys apart. */
  version: string;
  bucket: string;
  /** Route patterns (in `zone`). */
  routes: string[];
  zone: string;
  /** `workers_dev` (default true). */
  workersDev?: boolean;
}

/** The files of the project (wrangler.toml and src/index.js). */
export function workerProject(o: WorkerProjectOptions): Record<string, string> {
  const routes = o.routes.map((p) => `{ pattern = "${p}", zone_name = "${o.zone}" }`).join(', ');
  return {
    'wrangler.toml': [
      `name = "${o.name}"`,
      'main = "src/index.js"',
      'compatibility_date = "2024-09-23"',
      'no_bundle = true',
      `workers_dev = ${o.workersDev ?? true}`,
      `routes = [ ${routes} ]`,
      '',
      '[vars]',
      'GREETING = "hello"',
      'CONFIG = { a = 1 }',
      '',
      '[[r2_buckets]]',
      'binding = "BUCKET"',
      `bucket_name = "${o.bucket}"`,
      '',
    ].join('\n'),
    'src/index.js': `
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const object = url.pathname.match(/\\/object\\/(.+)$/);
    if (object && request.method === 'PUT') {
      await env.BUCKET.put(object[1], request.body);
      return new Response('stored', { status: 201 });
    }
    if (object) {
      const found = await env.BUCKET.get(object[1]);
      return found ? new Response(found.body) : new Response('no such object', { status: 404 });
    }
    return Response.json({
      script: ${JSON.stringify(o.name)}, version: ${JSON.stringify(o.version)}, greeting: env.GREETING, config: env.CONFIG,
      secret: env.API_KEY ?? null, url: request.url, ip: request.headers.get('cf-connecting-ip'),
    });
  },
};
`,
  };
}
