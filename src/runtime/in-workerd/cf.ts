/** What workerd tells a worker of the connection a request came on (`request.cf`). */

/** workerd's `request.cf.clientIp` (`1.2.3.4:5678`, `[::1]:5678`), when workerd gave one (`edge/forwarding.ts` parses it). */
export function cfClientIp(request: Request): string | undefined {
  const cf = (request as { cf?: { clientIp?: string } }).cf;
  return cf && cf.clientIp;
}
