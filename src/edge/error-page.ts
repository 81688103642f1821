/**
 * The edge's error pages, in production's shape: an HTML page naming the error code, its title, what
 * happened, and the ray id (the same id as the `CF-Ray` response header). Bundled into Stratus's workerd code
 * (`runtime/in-workerd/`) and used by Node too: web APIs only, checked by both tsconfigs.
 */

/** The HTML of an error page. */
export function errorPage(status: number, code: number, title: string, detail: string, ray: string): string {
  const esc = (s: string) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="en-US">
<head><meta charset="UTF-8"><title>${esc(title)} | Error ${code}</title></head>
<body>
<div id="cf-error-details">
<h1><span>Error</span> <span>${code}</span></h1>
<h2>${esc(title)}</h2>
<p>${esc(detail)}</p>
<p>HTTP status ${status}</p>
<p>Ray ID: <strong>${esc(ray)}</strong></p>
</div>
</body>
</html>
`;
}
