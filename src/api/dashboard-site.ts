/**
 * The dashboard's static files (built from dashboard/ into dist/dashboard by `npm run build`), served at `/` on
 * the v4 listener: index.html without caching, hashed assets under /assets/ cached for a year, gzip when the
 * client takes it, and the security headers of docs/dashboard.md (a strict Content-Security-Policy with no
 * inline script, no framing). The dashboard has no routes of its own: it calls the public v4 API, and the S3
 * API for uploads in parts: index.html names the S3 listener's port (`<meta name="stratus-s3-port">`) and its
 * CSP lets the page reach that port on the host the page was loaded from.
 */
import { Hono } from 'hono';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** The Content-Security-Policy of the dashboard's files: own scripts, styles and API calls only (plus `connect`, the S3 origin). */
export function dashboardCsp(connect?: string): string {
  return [
    "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: blob:", `connect-src 'self'${connect ? ` ${connect}` : ''}`,
    "font-src 'self'", "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'",
  ].join('; ');
}

/** The CSP of files other than index.html (a script or stylesheet's own CSP governs nothing, but is strict anyway). */
export const DASHBOARD_CSP = dashboardCsp();

/** The S3 API's origin for a page loaded from `host` (the request's Host header), or undefined when unusable. */
export function s3Origin(host: string | undefined, s3: { port: number; tls: boolean } | undefined): string | undefined {
  if (!s3 || !host) return undefined;
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::\d+)?$/.exec(host);
  return m ? `${s3.tls ? 'https' : 'http'}://${m[1]}:${s3.port}` : undefined;
}

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': DASHBOARD_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.map': 'application/json',
};

interface SiteFile { body: Buffer; gzip: Buffer; type: string }

/** The folder of the built dashboard: dist/dashboard beside the running code (dist/api/… or src/api/…). */
export function dashboardDir(): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const dir of [path.join(here, '..', 'dashboard'), path.join(here, '..', '..', 'dist', 'dashboard')]) {
    if (existsSync(path.join(dir, 'index.html'))) return dir;
  }
  return undefined;
}

/** Reads the built files once: index.html and the hashed assets. */
function loadSite(dir: string): Map<string, SiteFile> {
  const files = new Map<string, SiteFile>();
  const add = (urlPath: string, file: string) => {
    const body = readFileSync(file);
    files.set(urlPath, { body, gzip: gzipSync(body, { level: 9 }), type: TYPES[path.extname(file)] ?? 'application/octet-stream' });
  };
  add('/', path.join(dir, 'index.html'));
  const assets = path.join(dir, 'assets');
  if (existsSync(assets)) for (const name of readdirSync(assets)) if (!name.endsWith('.map')) add(`/assets/${name}`, path.join(assets, name));
  return files;
}

/** index.html for one request: the S3 port named, when the page may use it. */
function indexFor(file: SiteFile, origin: string | undefined): SiteFile {
  if (!origin) return file;
  const port = origin.slice(origin.lastIndexOf(':') + 1);
  const body = Buffer.from(file.body.toString('utf8').replace('<head>', `<head>\n<meta name="stratus-s3-port" content="${port}">`));
  return { body, gzip: gzipSync(body), type: file.type };
}

/**
 * Routes of the dashboard's files; `/` answers 404 with a hint when the dashboard was not built. `s3` tells where
 * the S3 API listens, once it does.
 */
export function dashboardRoutes(dir: string | undefined = dashboardDir(), s3?: () => { port: number; tls: boolean } | undefined): Hono {
  const app = new Hono();
  let files: Map<string, SiteFile> | undefined;
  const serve = (urlPath: string, acceptEncoding: string | undefined, host: string | undefined): Response | undefined => {
    files ??= dir ? loadSite(dir) : new Map();
    const stored = files.get(urlPath);
    if (!stored) return undefined;
    const origin = urlPath === '/' ? s3Origin(host, s3?.()) : undefined;
    const file = urlPath === '/' ? indexFor(stored, origin) : stored;
    const gzip = /\bgzip\b/.test(acceptEncoding ?? '');
    const headers = new Headers(SECURITY_HEADERS);
    if (origin) headers.set('content-security-policy', dashboardCsp(origin));
    headers.set('content-type', file.type);
    headers.set('cache-control', urlPath === '/' ? 'no-cache' : 'public, max-age=31536000, immutable');
    headers.set('vary', 'accept-encoding');
    if (gzip) headers.set('content-encoding', 'gzip');
    const body = gzip ? file.gzip : file.body;
    headers.set('content-length', String(body.byteLength));
    return new Response(new Uint8Array(body), { status: 200, headers });
  };
  const get = (urlPath: string, c: { req: { header(n: string): string | undefined; method: string } }) => {
    const r = serve(urlPath, c.req.header('accept-encoding'), c.req.header('host'));
    if (r) return c.req.method === 'HEAD' ? new Response(null, { status: 200, headers: r.headers }) : r;
    return new Response(urlPath === '/' ? 'The dashboard is not built: run npm run build.\n' : 'Not found\n', {
      status: 404, headers: { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' },
    });
  };
  app.get('/', (c) => get('/', c));
  app.get('/assets/:name', (c) => get(`/assets/${c.req.param('name')}`, c));
  return app;
}
