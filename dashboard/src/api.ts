/**
 * The v4 API as the dashboard calls it: same origin, `/client/v4`, the session's credential in headers (never in
 * the URL). Failures become an {@link ApiError} carrying the envelope's own errors, which pages show as they are.
 */
import { authHeaders, type Credential } from './session';

/** One error of the v4 envelope. */
export interface ApiErrorEntry { code: number; message: string }

/** A failed call: the HTTP status and the API's errors. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly errors: ApiErrorEntry[]) {
    super(errors.map((e) => `${e.message} (${e.code})`).join('; ') || `HTTP ${status}`);
  }
}

/** A successful envelope. */
export interface Envelope<T> { result: T; result_info?: Record<string, any>; messages?: unknown[] }

let credential: Credential | undefined;

/** Sets the credential every call uses. */
export function useCredential(c: Credential | undefined): void {
  credential = c;
}

/** The URL of a v4 path with its query (undefined and empty values left out). */
export function v4Url(path: string, query?: Record<string, string | number | boolean | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') params.append(k, String(v));
  const qs = params.toString();
  return `/client/v4${path}${qs ? `?${qs}` : ''}`;
}

async function errorOf(res: Response): Promise<ApiError> {
  try {
    const body = await res.json();
    if (Array.isArray(body?.errors) && body.errors.length > 0) return new ApiError(res.status, body.errors);
  } catch { /* not JSON */ }
  return new ApiError(res.status, [{ code: res.status, message: res.statusText || `HTTP ${res.status}` }]);
}

/** Sends a raw request with the credential; throws the API's errors on a failure. */
export async function send(method: string, path: string, body?: BodyInit | object, query?: Record<string, string | number | boolean | undefined>, cred = credential): Promise<Response> {
  const headers: Record<string, string> = cred ? authHeaders(cred) : {};
  let payload: BodyInit | undefined;
  if (body instanceof FormData || body instanceof Blob || typeof body === 'string') payload = body;
  else if (body !== undefined) { payload = JSON.stringify(body); headers['content-type'] = 'application/json'; }
  const res = await fetch(v4Url(path, query), { method, headers, body: payload, credentials: 'omit', cache: 'no-store' });
  if (!res.ok) throw await errorOf(res);
  return res;
}

/** A v4 call answering the JSON envelope. */
export async function call<T = any>(method: string, path: string, body?: BodyInit | object, query?: Record<string, string | number | boolean | undefined>, cred?: Credential): Promise<Envelope<T>> {
  const res = await send(method, path, body, query, cred);
  const json = await res.json();
  if (json && json.success === false) throw new ApiError(res.status, json.errors ?? []);
  return json as Envelope<T>;
}

/** GET shorthand. */
export const get = <T = any>(path: string, query?: Record<string, string | number | boolean | undefined>) => call<T>('GET', path, undefined, query);

/** Uploads a body with progress (XMLHttpRequest: fetch has no upload progress) and a way to cancel. */
export function upload(method: string, path: string, body: Blob, headers: Record<string, string>, onProgress: (sent: number, total: number) => void): { done: Promise<any>; cancel: () => void } {
  const xhr = new XMLHttpRequest();
  const done = new Promise<any>((resolve, reject) => {
    xhr.open(method, v4Url(path));
    for (const [k, v] of Object.entries({ ...(credential ? authHeaders(credential) : {}), ...headers })) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : body.size);
    xhr.onload = () => {
      let json: any;
      try { json = JSON.parse(xhr.responseText); } catch { json = undefined; }
      if (xhr.status >= 200 && xhr.status < 300 && json?.success !== false) resolve(json);
      else reject(new ApiError(xhr.status, json?.errors ?? [{ code: xhr.status, message: xhr.statusText }]));
    };
    xhr.onerror = () => reject(new ApiError(0, [{ code: 0, message: 'The upload failed (network error)' }]));
    xhr.onabort = () => reject(new ApiError(0, [{ code: 0, message: 'Upload cancelled' }]));
    xhr.send(body);
  });
  return { done, cancel: () => xhr.abort() };
}

/** Saves a response body as a file the browser downloads. */
export async function saveResponse(res: Response, fileName: string): Promise<void> {
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
