/**
 * The signed-in credential, kept only in this tab's sessionStorage (gone when the tab closes; never in a URL,
 * a cookie or localStorage).
 */

/** An API token, or an e-mail with its global API key. */
export type Credential = { kind: 'token'; token: string } | { kind: 'key'; email: string; key: string };

/** What the dashboard keeps for the session. */
export interface Session {
  credential: Credential;
  /** The account the pages work on (buckets, scripts, new zones). */
  accountId: string;
  accountName: string;
}

const KEY = 'stratus.session';

/** The session of this tab, if signed in. */
export function loadSession(): Session | undefined {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Session) : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps the session for this tab. */
export function saveSession(s: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(s));
}

/** Forgets the session. */
export function clearSession(): void {
  sessionStorage.removeItem(KEY);
}

/** The request headers that authenticate a credential, as the v4 API reads them. */
export function authHeaders(c: Credential): Record<string, string> {
  return c.kind === 'token' ? { authorization: `Bearer ${c.token}` } : { 'x-auth-email': c.email, 'x-auth-key': c.key };
}
