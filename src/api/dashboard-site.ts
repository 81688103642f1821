/**
 * The dashboard's static files (built from dashboard/ into dist/dashboard by `npm run build`), served at `/` on
 * the v4 listener: index.html without caching, hashed assets under /assets/ cached for a year, gzip when the
 * client takes it, and the security headers of docs/dashboard.md (a strict Content-Security-Policy with no
 * inline script, no framing). The dashboard has no routes of its own: it calls the public v4 API.
 */
import { Hono } from 'hono';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** The Content-Security-Policy of every dashboard file: own scripts, styles and API calls only. */
export const DASHBOARD_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: blob:", "connect-src 'self'",
  "font-src 'self'", "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'",
].join('; ');

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

/** Routes of the dashboard's files; `/` answers 404 with a hint when the dashboard was not built. */
export function dashboardRoutes(dir: string | undefined = dashboardDir()): Hono {
  const app = new Hono();
  let files: Map<string, SiteFile> | undefined;
  const serve = (urlPath: string, acceptEncoding: string | undefined): Response | undefined => {
    files ??= dir ? loadSite(dir) : new Map();
    const file = files.get(urlPath);
    if (!file) return undefined;
    const gzip = /\bgzip\b/.test(acceptEncoding ?? '');
    const headers = new Headers(SECURITY_HEADERS);
    headers.set('content-type', file.type);
    headers.set('cache-control', urlPath === '/' ? 'no-cache' : 'public, max-age=31536000, immutable');
    headers.set('vary', 'accept-encoding');
    if (gzip) headers.set('content-encoding', 'gzip');
    const body = gzip ? file.gzip : file.body;
    headers.set('content-length', String(body.byteLength));
    return new Response(new Uint8Array(body), { status: 200, headers });
  };
  const get = (urlPath: string, c: { req: { header(n: string): string | undefined; method: string } }) => {
    const r = serve(urlPath, c.req.header('accept-encoding'));
    if (r) return c.req.method === 'HEAD' ? new Response(null, { status: 200, headers: r.headers }) : r;
    return new Response(urlPath === '/' ? 'The dashboard is not built: run npm run build.\n' : 'Not found\n', {
      status: 404, headers: { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' },
    });
  };
  app.get('/', (c) => get('/', c));
  app.get('/assets/:name', (c) => get(`/assets/${c.req.param('name')}`, c));
  return app;
}
