/**
 * Automatic HTTPS Rewrites (the zone setting `automatic_https_rewrites`): an HTML answer served over HTTPS has
 * the `http://` URLs in its tags' `src`, `href` and `action` attributes rewritten to `https://` when their
 * hostname is one the edge serves over HTTPS (production rewrites only URLs known to work over HTTPS; Stratus
 * knows its own hostnames: an active zone's, `ssl` not off, with a certificate to present). A URL with a port
 * other than 80 is left alone (`:80` is dropped when rewritten); everything else passes byte for byte.
 *
 * Streaming: each chunk is rewritten up to its last complete tag, the unfinished tag carried to the next chunk
 * (at most {@link CARRY_LIMIT} bytes, then passed as it is). Text is handled as latin1 so bytes of any encoding
 * survive untouched. Tags are found by a scanner, not a full HTML parser: a `<tag attr=http://…>` inside a
 * script's text is rewritten too.
 */
import { Transform, type TransformCallback } from 'node:stream';

/** Longest unfinished tag carried between chunks (bytes). */
export const CARRY_LIMIT = 64 * 1024;

const TAG = /<[a-zA-Z][^<>]*>/g;
const ATTR = /(\s(?:src|href|action)\s*=\s*["']?\s*)http:\/\/([a-zA-Z0-9.-]+)(:80(?![0-9]))?(?=[/"'\s>?#]|$)/gi;

/** Whether an answer with these headers is rewritten: HTML, not compressed. */
export function rewritable(headers: Record<string, string | string[] | undefined>): boolean {
  const type = String(headers['content-type'] ?? '').toLowerCase();
  const encoding = String(headers['content-encoding'] ?? 'identity').toLowerCase();
  return type.startsWith('text/html') && (encoding === 'identity' || encoding === '');
}

/** Rewrites the tags of `text` whose hosts `https(host)` accepts (hosts looked up once per call). */
export async function rewriteTags(text: string, https: (host: string) => Promise<boolean>): Promise<string> {
  const hosts = new Set<string>();
  for (const tag of text.match(TAG) ?? []) for (const m of tag.matchAll(ATTR)) hosts.add(m[2]!.toLowerCase());
  if (hosts.size === 0) return text;
  const ok = new Set<string>();
  await Promise.all([...hosts].map(async (h) => { if (await https(h).catch(() => false)) ok.add(h); }));
  if (ok.size === 0) return text;
  return text.replace(TAG, (tag) => tag.replace(ATTR, (all, lead: string, host: string) => (ok.has(host.toLowerCase()) ? `${lead}https://${host}` : all)));
}

/** A stream rewriting an HTML body as it passes (see the file's comment). */
export class HttpsRewriter extends Transform {
  private carry = '';

  constructor(private readonly https: (host: string) => Promise<boolean>) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const text = this.carry + chunk.toString('latin1');
    const open = text.lastIndexOf('<');
    const cut = open >= 0 && text.indexOf('>', open) < 0 && text.length - open <= CARRY_LIMIT ? open : text.length;
    this.carry = text.slice(cut);
    rewriteTags(text.slice(0, cut), this.https).then((out) => done(null, Buffer.from(out, 'latin1')), done);
  }

  override _flush(done: TransformCallback): void {
    const rest = this.carry;
    this.carry = '';
    rewriteTags(rest, this.https).then((out) => done(null, Buffer.from(out, 'latin1')), done);
  }
}
