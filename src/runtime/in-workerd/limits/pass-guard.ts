/**
 * Part of both setup modules (setup-counting.ts, setup-none.ts): the built-ins the pass-through mark is handled
 * with, captured before any module of the script evaluates (the setup module is the entry's first import), and
 * the functions that touch the nonce. Objects handed to built-ins have no prototype, so no getter a script puts on
 * `Object.prototype` runs; the marked answer has its own `then`, so resolving a promise with it looks nothing up.
 * Scripts may import these functions: without the request's nonce they can do nothing a script cannot do itself.
 */
import { errorPage } from '../../../edge/error-page.js';
import { PASS_HEADER, PASS_NONCE_HEADER, PASS_REASON_HEADER, RECORD_HEADER } from '../headers.js';

/** A method called as a function of its receiver, immune to later changes of the prototype. */
const uncurry = <T, A extends unknown[], R>(f: (this: T, ...args: A) => R): ((self: T, ...args: A) => R) =>
  Function.prototype.call.bind(f as (...args: unknown[]) => unknown) as unknown as (self: T, ...args: A) => R;
const HeadersCtor = Headers;
const RequestCtor = Request;
const ResponseCtor = Response;
const headersGet = uncurry(Headers.prototype.get);
const headersDelete = uncurry(Headers.prototype.delete);
const defineProperty = Object.defineProperty;
/** A getter of Request objects found on the prototype chain now (an instance property on old compatibility dates). */
function getter<O, V>(proto: object, name: string): (o: O) => V {
  for (let p: object | null = proto; p !== null; p = Object.getPrototypeOf(p) as object | null) {
    const d = Object.getOwnPropertyDescriptor(p, name);
    if (d) return d.get ? uncurry(d.get as (this: O) => V) : (o) => (o as Record<string, V>)[name]!;
  }
  return (o) => (o as Record<string, V>)[name]!;
}
const headersOf = getter<Request, Headers>(Request.prototype, 'headers');
const bodyOf = getter<Request, ReadableStream | null>(Request.prototype, 'body');
const bodyUsedOf = getter<Request, boolean>(Request.prototype, 'bodyUsed');
const lockedOf = getter<ReadableStream, boolean>(ReadableStream.prototype, 'locked');

/** The request's body when the script left it unread (undefined when it read or locked it). */
export function unreadBody(request: Request): ReadableStream | null | undefined {
  const body = bodyOf(request);
  return body === null || (!bodyUsedOf(request) && !lockedOf(body)) ? body : undefined;
}

/** What {@link takeNonce} takes off a request. */
export interface TakenNonce {
  nonce: string | null;
  record: string | null;
  request: Request;
}

/** The request's pass-through nonce (null if none) and the request without it, which is all the script gets. */
export function takeNonce(request: Request): TakenNonce {
  const headers = headersOf(request);
  const nonce = headersGet(headers, PASS_NONCE_HEADER);
  if (nonce === null) return { __proto__: null, nonce: null, record: null, request } as TakenNonce;
  const record = headersGet(headers, RECORD_HEADER);
  const rest = new HeadersCtor(headers);
  headersDelete(rest, PASS_NONCE_HEADER);
  if (record !== null) headersDelete(rest, RECORD_HEADER);
  return { __proto__: null, nonce, record, request: new RequestCtor(request, { __proto__: null, headers: rest } as RequestInit) } as TakenNonce;
}
/** The request's ray id (the edge's cf-ray request header), read with the captured built-ins. */
export function rayOf(request: Request): string {
  return headersGet(headersOf(request), 'cf-ray') || '';
}
/** Production's error page as an answer (the entry answers it itself when no supervisor is behind it: the fast path). */
export function pageAnswer(status: number, code: number, title: string, detail: string, ray: string): Response {
  return new ResponseCtor(errorPage(status, code, title, detail, ray), { __proto__: null, status, headers: { __proto__: null,
    'content-type': 'text/html; charset=UTF-8', 'cf-ray': ray, 'cache-control': 'private, max-age=0, no-store, no-cache, must-revalidate' } } as unknown as ResponseInit);
}
/** The answer that tells the supervisor to pass the request on: marked with the request's nonce, carrying its unread body. */
export function passAnswer(body: ReadableStream | null, nonce: string | null, reason: string): Response {
  if (nonce === null) throw new Error('this request cannot be passed on');
  const res = new ResponseCtor(body, { __proto__: null, headers: { __proto__: null, [PASS_HEADER]: nonce, [PASS_REASON_HEADER]: reason } } as unknown as ResponseInit);
  defineProperty(res, 'then', { __proto__: null, value: undefined } as PropertyDescriptor);
  return res;
}
