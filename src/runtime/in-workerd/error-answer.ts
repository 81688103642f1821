/**
 * Production's error pages as answers of Stratus's workerd code (the page itself: `edge/error-page.ts`), and the
 * details of the 1101 page a request gets when its script passed it on and nothing is behind the script.
 */
import { errorPage } from '../../edge/error-page.js';

/** The headers of an error page answer. */
export function errorPageHeaders(ray: string): Record<string, string> {
  return { 'content-type': 'text/html; charset=UTF-8', 'cf-ray': ray, 'cache-control': 'private, max-age=0, no-store, no-cache, must-revalidate' };
}

/** Production's error page with this status, code, title and detail, under the request's ray id. */
export function page(status: number, code: number, title: string, detail: string, ray: string): Response {
  return new Response(errorPage(status, code, title, detail, ray), { status, headers: errorPageHeaders(ray) });
}

/**
 * The 1101 page's detail when a script passed its request on (no listener called respondWith(), or it threw after
 * passThroughOnException()) and the hostname has no origin, or the script had read the body, by the reason.
 */
export const PASS_DETAIL: Record<string, string> = {
  'no-respond-with': 'No fetch event listener called respondWith(), and this hostname has no origin to pass the request to.',
  exception: 'The script threw after passThroughOnException(), and this hostname has no origin to pass the request to.',
  'body-used': 'The script passed the request on after reading its body, which can no longer be sent to the origin.',
};
