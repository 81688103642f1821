/**
 * What an application tells its listener about a request, for the access log and the metrics: the route
 * template (or S3 operation) it matched, who made it, its request id. The listener's observer
 * (http-observer.ts) attaches an empty note to every request before the application sees it; the application
 * fills it in with {@link noteRequest}. Only ids and templates go here: never a key, token or secret.
 */

/** Facts about one request. */
export interface RequestNote {
  /** Route template (`/client/v4/zones/:zone_id`) or S3 operation (`PutObject`). */
  route?: string;
  /** The account the request acted as, when authentication tells exactly one. */
  accountId?: string;
  /** The authenticated user (v4). */
  userId?: string;
  /** The S3 access key id that signed the request (an id, not a secret). */
  accessKeyId?: string;
  /** The request id the response carries or the application logs under. */
  requestId?: string;
  /** The client's scheme, when the listener serves both (the edge: `http` or `https`). */
  scheme?: string;
  /** Served on the edge's fast path (nginx straight to the script version's socket). */
  fast?: boolean;
}

const notes = new WeakMap<Request, RequestNote>();

/** Attaches `note` to `req` (the listener's observer does this before the application runs). */
export function attachNote(req: Request, note: RequestNote): void {
  notes.set(req, note);
}

/** Adds facts to the note of `req` (nothing happens for a request no listener observes, e.g. `app.request()`). */
export function noteRequest(req: Request, facts: RequestNote): void {
  const note = notes.get(req);
  if (!note) return;
  for (const [k, v] of Object.entries(facts)) if (v !== undefined) (note as Record<string, unknown>)[k] = v;
}
