/**
 * DNS-over-HTTPS (RFC 8484) on the v4 listener: `GET /dns-query?dns=<base64url>` and `POST /dns-query`
 * (`application/dns-message`), plus the JSON form (`GET /dns-query?name=&type=`, dns-json.ts). Public, like port
 * 53: no credential is read, and only the zones this server is authoritative for are answered (REFUSED
 * otherwise). Every query goes to the DNS server's own handler (the one UDP and TCP use, with TCP's size: RFC
 * 8484 §6 has no truncation), so the answer is the one `dig` gets, signed when DO is set and the zone has
 * DNSSEC on. Zone transfers are REFUSED here (they stay on TCP with its allow-list and TSIG). Requests count
 * against the v4 request rate (limits/) per client address when that limit is on.
 * Errors: 400 for a dns parameter that is not base64url or a message that is not a DNS query, 405 for other
 * methods, 413 for a body over 65,535 bytes, 414 for a `dns` parameter decoding to more, 415 for a POST that is
 * not `application/dns-message`, 429 over the rate.
 */
import { Hono, type Context } from 'hono';
import type { ApiEnv } from './context.js';
import type { Limits } from '../limits/limits.js';
import { clientKey, peerAddress } from '../limits/client-address.js';
import { RateLimitedError } from '../limits/rate-limited.js';
import { decodeMessage, encodeMessage, type DecodedMessage } from '../dns/wire/message.js';
import { OPCODE, RCODE, TYPE } from '../dns/wire/constants.js';
import { Writer } from '../dns/wire/writer.js';
import type { QueryOrigin, Responses } from '../dns-server/query-types.js';
import { DnsJsonError, jsonAnswer, jsonQuery, parseJsonQuestion } from './dns-json.js';

/** Answers one DNS message as the DNS server does (its handler, or the DNS thread's). */
export type DnsQuery = (message: Buffer, from: QueryOrigin) => Responses | Promise<Responses>;

/** The path of the endpoint (RFC 8484 §3 leaves it to the server; `/dns-query` is the customary one). */
export const DNS_QUERY_PATH = '/dns-query';
/** Largest DNS message (RFC 8484 §6: a DoH message is at most 65,535 bytes). */
const MAX_MESSAGE = 65_535;
const MESSAGE_TYPE = 'application/dns-message';
const JSON_TYPE = 'application/dns-json';

class HttpRefusal extends Error {
  constructor(readonly status: 400 | 413 | 414 | 415, message: string) { super(message); }
}

function plain(status: number, text: string, headers: Record<string, string> = {}): Response {
  return new Response(`${text}\n`, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers } });
}

/** Decodes RFC 4648 §5 base64url (padding tolerated); throws {@link HttpRefusal} 400 otherwise. */
function base64url(text: string): Buffer {
  const bare = text.replace(/=+$/, '');
  if (bare === '' || !/^[A-Za-z0-9_-]+$/.test(bare) || bare.length % 4 === 1) throw new HttpRefusal(400, 'The dns parameter is not base64url (RFC 8484 §4.1)');
  return Buffer.from(bare, 'base64url');
}

/** Reads a POST body up to the DoH maximum; 413 beyond it. */
async function readBody(req: Request): Promise<Buffer> {
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (declared > MAX_MESSAGE) throw new HttpRefusal(413, `A DNS message is at most ${MAX_MESSAGE} bytes`);
  if (!req.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_MESSAGE) { await reader.cancel(); throw new HttpRefusal(413, `A DNS message is at most ${MAX_MESSAGE} bytes`); }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The query decoded, or 400 when it is no DNS query (RFC 8484 §4.2.1). */
function checkQuery(buf: Buffer): DecodedMessage {
  let msg: DecodedMessage;
  try {
    msg = decodeMessage(buf);
  } catch {
    throw new HttpRefusal(400, 'The request is not a well-formed DNS message');
  }
  if (msg.qr) throw new HttpRefusal(400, 'The DNS message is a response, not a query');
  return msg;
}

/** A header-and-question reply with `rcode` (zone transfers here). */
function refusal(msg: DecodedMessage, rcode: number): Buffer {
  const w = new Writer(512);
  encodeMessage(w, { id: msg.id, qr: true, opcode: msg.opcode, aa: false, rd: msg.rd, cd: msg.cd, rcode, question: msg.questions[0], answers: [], authorities: [], additionals: [] });
  return w.result();
}

/** Cache lifetime of an answer (RFC 8484 §5.1): the smallest TTL of its records; none for answers without any. */
function maxAge(answer: Buffer): string {
  try {
    const m = decodeMessage(answer);
    const ttls = [...m.answers, ...m.authorities].map((r) => r.ttl);
    if (m.rcode === RCODE.REFUSED || m.rcode === RCODE.SERVFAIL || ttls.length === 0) return 'no-store';
    return `max-age=${Math.min(...ttls)}`;
  } catch {
    return 'no-store';
  }
}

/** The DoH routes; `query` answers DNS messages, `limits` (when on) rate the client addresses. */
export function dnsQueryRoutes(query: DnsQuery, limits?: Limits): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  const answer = async (buf: Buffer, c: Context<ApiEnv>): Promise<Buffer> => {
    const msg = checkQuery(buf);
    const q = msg.questions[0];
    if (msg.opcode === OPCODE.QUERY && (q?.type === TYPE.AXFR || q?.type === TYPE.IXFR)) return refusal(msg, RCODE.REFUSED);
    const out = await query(buf, { transport: 'tcp', address: peerAddress(c.env) ?? '' });
    if (!out[0]) throw new HttpRefusal(400, 'The DNS message has no answer');
    return out[0];
  };

  const handle = async (c: Context<ApiEnv>): Promise<Response> => {
    const rateHeaders: Record<string, string> = {};
    try {
      const who = clientKey(peerAddress(c.env));
      if (limits?.api && who !== undefined) Object.assign(rateHeaders, await limits.api.take(`doh:${who}`, 'v4'));
      if (c.req.method === 'POST') {
        const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
        if (type !== MESSAGE_TYPE) throw new HttpRefusal(415, `POST a DNS message as ${MESSAGE_TYPE}`);
        const out = await answer(await readBody(c.req.raw), c);
        return new Response(new Uint8Array(out), { headers: { 'content-type': MESSAGE_TYPE, 'cache-control': maxAge(out), ...rateHeaders } });
      }
      const dns = c.req.query('dns');
      if (dns === undefined && c.req.query('name') !== undefined) {
        const question = parseJsonQuestion((k) => c.req.query(k));
        const out = await answer(jsonQuery(question), c);
        return new Response(JSON.stringify(jsonAnswer(out)), { headers: { 'content-type': `${JSON_TYPE}; charset=utf-8`, 'cache-control': maxAge(out), ...rateHeaders } });
      }
      if (dns === undefined) throw new HttpRefusal(400, 'Give a dns parameter (RFC 8484) or a name (JSON)');
      if (dns.length > Math.ceil((MAX_MESSAGE * 4) / 3)) throw new HttpRefusal(414, `A DNS message is at most ${MAX_MESSAGE} bytes`);
      const out = await answer(base64url(dns), c);
      return new Response(new Uint8Array(out), { headers: { 'content-type': MESSAGE_TYPE, 'cache-control': maxAge(out), ...rateHeaders } });
    } catch (err) {
      if (err instanceof HttpRefusal) return plain(err.status, err.message, rateHeaders);
      if (err instanceof DnsJsonError) {
        return new Response(JSON.stringify({ error: err.message }), { status: 400, headers: { 'content-type': `${JSON_TYPE}; charset=utf-8`, 'cache-control': 'no-store', ...rateHeaders } });
      }
      if (err instanceof RateLimitedError) return plain(429, err.message, err.headers);
      throw err;
    }
  };

  app.get(DNS_QUERY_PATH, handle);
  app.post(DNS_QUERY_PATH, handle);
  app.all(DNS_QUERY_PATH, (c) => plain(405, 'DNS-over-HTTPS takes GET and POST (RFC 8484 §4.1)', { allow: 'GET, HEAD, POST' }));
  return app;
}
