/**
 * Request framing the edge's front refuses (RFC 9112 §6.1 and §6.3): a request with both `Transfer-Encoding`
 * and `Content-Length` (the classic request-smuggling vector), or whose `Transfer-Encoding` is anything but
 * `chunked` once (workerd's parser passes `chunked, chunked` on; it answers the other codings itself). The
 * server must answer 400 and close the connection. Only what the front's worker can see is checked here:
 * what workerd's own parser does with other malformed requests is listed in `docs/edge.md` ("Framing").
 *
 * Bundled into the front and supervisor workers (`runtime/in-workerd/`) and used by Node too: web APIs only,
 * checked by both tsconfigs.
 */

/** Why the request's framing headers are refused, or undefined when they are fine. */
export function framingFault(headers: Headers): string | undefined {
  const te = headers.get('transfer-encoding');
  if (te === null) return undefined;
  if (headers.has('content-length')) return 'the request has both Transfer-Encoding and Content-Length';
  if (te.trim().toLowerCase() !== 'chunked') return 'the request\'s Transfer-Encoding is not chunked alone';
  return undefined;
}

/**
 * An answer sent whole, after which workerd closes the client's connection: workerd keeps a connection whose
 * answer ended cleanly and ignores a `Connection` header a worker sets, but closes it when a body of known
 * length fails once it is whole. `waitUntil` is the request's `ctx.waitUntil`. Only for workerd (its
 * `FixedLengthStream`).
 */
export function closingAnswer(body: string, status: number, headers: Record<string, string>, waitUntil: (p: Promise<unknown>) => void): Response {
  const bytes = new TextEncoder().encode(body);
  const { readable, writable } = new (globalThis as unknown as { FixedLengthStream: new (n: number) => TransformStream }).FixedLengthStream(bytes.byteLength);
  const writer = writable.getWriter();
  waitUntil(writer.write(bytes).then(() => writer.abort(new Error('closing the connection after a framing error'))).catch(() => undefined));
  return new Response(readable, { status, headers });
}
