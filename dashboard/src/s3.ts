/**
 * Uploads in parts over the S3 API, signed in the browser (AWS Signature V4 with WebCrypto). The key pair is the
 * signed-in API token's, as Stratus and production derive it: access key id = the token's id, secret = the
 * SHA-256 hex of its value (docs/s3.md). The S3 listener is another origin: the page learns its port from
 * index.html, and the bucket needs a CORS rule for this page's origin (the bucket page offers to add one).
 */
import { ApiError, call } from './api';
import type { Credential } from './session';

/** Where and as whom the page talks S3. */
export interface S3Target { origin: string; accessKeyId: string; secretAccessKey: string; region: string }

const enc = new TextEncoder();
const hex = (b: ArrayBuffer) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');
const sha256 = async (s: string) => hex(await crypto.subtle.digest('SHA-256', enc.encode(s)));
async function hmac(key: ArrayBuffer | Uint8Array<ArrayBuffer>, data: string): Promise<ArrayBuffer> {
  const k = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return crypto.subtle.sign('HMAC', k, enc.encode(data));
}
/** RFC 3986 encoding, as SigV4 wants it. */
const uri = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The S3 target of a token session; undefined for a global key or when the page was given no S3 port. */
export async function s3Target(credential: Credential, accountId: string): Promise<S3Target | undefined> {
  const port = document.querySelector('meta[name="stratus-s3-port"]')?.getAttribute('content');
  if (!port || credential.kind !== 'token') return undefined;
  let id: string | undefined;
  for (const path of ['/user/tokens/verify', `/accounts/${accountId}/tokens/verify`]) {
    try { id = (await call('GET', path)).result.id; break; } catch { /* the other owner */ }
  }
  if (!id) return undefined;
  return { origin: `${location.protocol}//${location.hostname}:${port}`, accessKeyId: id, secretAccessKey: await sha256(credential.token), region: 'auto' };
}

/** The headers that sign a request (path-style URL; the payload unsigned, as S3 allows). */
export async function signHeaders(t: S3Target, method: string, url: URL, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const amzDate = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = { ...extra, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'x-amz-date': amzDate };
  const signed: Record<string, string> = { host: url.host };
  for (const [k, v] of Object.entries(headers)) if (k.startsWith('x-amz-') || k === 'content-type') signed[k.toLowerCase()] = v.trim();
  const names = Object.keys(signed).sort();
  const query = [...url.searchParams].map(([k, v]) => [uri(k), uri(v)]).sort(([a, b], [c, d]) => (a! < c! ? -1 : a! > c! ? 1 : b! < d! ? -1 : b! > d! ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join('&');
  const canonical = `${method}\n${url.pathname}\n${query}\n${names.map((n) => `${n}:${signed[n]}\n`).join('')}\n${names.join(';')}\nUNSIGNED-PAYLOAD`;
  const scope = `${day}/${t.region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, await sha256(canonical)].join('\n');
  let key = await hmac(enc.encode(`AWS4${t.secretAccessKey}`), day);
  for (const part of [t.region, 's3', 'aws4_request']) key = await hmac(key, part);
  const signature = hex(await hmac(key, toSign));
  return { ...headers, authorization: `AWS4-HMAC-SHA256 Credential=${t.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}` };
}

/** The URL of an object, path-style (each key segment encoded once, as SigV4 signs it). */
function objectUrl(t: S3Target, bucket: string, key: string, query: Record<string, string> = {}): URL {
  const url = new URL(`${t.origin}/${uri(bucket)}/${key.split('/').map(uri).join('/')}`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return url;
}

async function s3Error(res: Response): Promise<ApiError> {
  const text = await res.text();
  const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1] ?? `HTTP ${res.status}`;
  const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? res.statusText;
  return new ApiError(res.status, [{ code: res.status, message: `${code}: ${message}` }]);
}

async function s3Fetch(t: S3Target, method: string, url: URL, body?: BodyInit, extra: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(url, { method, headers: await signHeaders(t, method, url, extra), body, credentials: 'omit', cache: 'no-store' });
  if (!res.ok) throw await s3Error(res);
  return res;
}

/** Part size of uploads in parts. */
export const PART_SIZE = 8 * 1024 * 1024;

/** An upload in parts: progress over all parts, cancel aborts the upload on the server too. */
export function uploadInParts(t: S3Target, bucket: string, key: string, file: Blob, opts: { contentType: string; storageClass?: string; customMetadata?: Record<string, string>; httpHeaders?: Record<string, string> }, onProgress: (sent: number, total: number) => void): { done: Promise<{ parts: number }>; cancel: () => void } {
  let cancelled = false;
  let current: XMLHttpRequest | undefined;
  let uploadId: string | undefined;
  const done = (async () => {
    const createHeaders: Record<string, string> = { ...opts.httpHeaders, 'content-type': opts.contentType };
    for (const [k, v] of Object.entries(opts.customMetadata ?? {})) createHeaders[`x-amz-meta-${k.toLowerCase()}`] = v;
    if (opts.storageClass) createHeaders['x-amz-storage-class'] = opts.storageClass === 'InfrequentAccess' ? 'STANDARD_IA' : 'STANDARD';
    const created = await (await s3Fetch(t, 'POST', objectUrl(t, bucket, key, { uploads: '' }), undefined, createHeaders)).text();
    uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(created)?.[1];
    if (!uploadId) throw new ApiError(0, [{ code: 0, message: 'The S3 API answered CreateMultipartUpload without an UploadId' }]);
    const count = Math.max(1, Math.ceil(file.size / PART_SIZE));
    const etags: string[] = [];
    for (let n = 1; n <= count; n++) {
      if (cancelled) throw new ApiError(0, [{ code: 0, message: 'Upload cancelled' }]);
      const part = file.slice((n - 1) * PART_SIZE, Math.min(file.size, n * PART_SIZE));
      const url = objectUrl(t, bucket, key, { partNumber: String(n), uploadId });
      const headers = await signHeaders(t, 'PUT', url);
      etags.push(await new Promise<string>((resolve, reject) => {
        const xhr = new XMLHttpRequest();
        current = xhr;
        xhr.open('PUT', url.toString());
        for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
        xhr.upload.onprogress = (e) => onProgress((n - 1) * PART_SIZE + e.loaded, file.size);
        xhr.onload = () => {
          const etag = xhr.getResponseHeader('etag');
          if (xhr.status >= 200 && xhr.status < 300 && etag) resolve(etag);
          else reject(new ApiError(xhr.status, [{ code: xhr.status, message: etag ? xhr.responseText : 'The part was stored but its ETag is not readable: the bucket\'s CORS rule must expose ETag' }]));
        };
        xhr.onerror = () => reject(new ApiError(0, [{ code: 0, message: 'A part failed to upload (network or CORS)' }]));
        xhr.onabort = () => reject(new ApiError(0, [{ code: 0, message: 'Upload cancelled' }]));
        xhr.send(part);
      }));
    }
    const xml = `<CompleteMultipartUpload>${etags.map((e, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${e}</ETag></Part>`).join('')}</CompleteMultipartUpload>`;
    const completed = await (await s3Fetch(t, 'POST', objectUrl(t, bucket, key, { uploadId }), xml, { 'content-type': 'application/xml' })).text();
    if (/<Error>/.test(completed)) throw new ApiError(200, [{ code: 200, message: /<Message>([^<]*)/.exec(completed)?.[1] ?? 'CompleteMultipartUpload failed' }]);
    return { parts: count };
  })();
  const guarded = done.catch(async (e) => {
    if (uploadId) await s3Fetch(t, 'DELETE', objectUrl(t, bucket, key, { uploadId })).catch(() => undefined);
    throw e;
  });
  return { done: guarded, cancel: () => { cancelled = true; current?.abort(); } };
}

/** A CORS rule that lets this page upload in parts to a bucket. */
export function dashboardCorsRule(): Record<string, unknown> {
  return { id: 'stratus-dashboard', allowed: { origins: [location.origin], methods: ['PUT', 'POST', 'DELETE'], headers: ['*'] }, exposeHeaders: ['ETag'], maxAgeSeconds: 600 };
}
