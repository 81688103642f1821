/**
 * `stratus credentials --env`: the saved credentials as `export` lines a shell evaluates
 * (`eval "$(stratus credentials --env)"`), for the AWS CLI and SDKs (`AWS_*`) and wrangler and the official
 * SDKs (`CLOUDFLARE_*`), with the URLs of `--http` and `--s3`. The account id is asked of the running Stratus
 * (`GET /accounts` with the saved token); when it does not answer, a comment line says so instead.
 */
import type { ListenAddress } from '../config/config.js';
import type { SavedCredentials } from './credentials-command.js';

/** Where the listeners are, as the command's flags say. */
export interface EnvEndpoints {
  http: ListenAddress;
  s3: ListenAddress | undefined;
  s3Region: string;
}

/** How long the running Stratus gets to name the account (ms). */
const ACCOUNT_TIMEOUT_MS = 5_000;

/** `http://host:port` for a listen address (a wildcard host becomes loopback). */
export function listenUrl(a: ListenAddress): string {
  const host = a.host === '0.0.0.0' ? '127.0.0.1' : a.host === '::' ? '::1' : a.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${a.port}`;
}

/** The export lines (and comments) for `c`. */
export async function formatEnv(c: SavedCredentials, at: EnvEndpoints): Promise<string> {
  const lines: string[] = [];
  const put = (name: string, value: string) => lines.push(`export ${name}=${shellQuote(value)}`);
  if (c.s3 && at.s3) {
    put('AWS_ACCESS_KEY_ID', c.s3.access_key_id);
    put('AWS_SECRET_ACCESS_KEY', c.s3.secret_access_key);
    put('AWS_ENDPOINT_URL', listenUrl(at.s3));
    put('AWS_DEFAULT_REGION', at.s3Region);
    put('AWS_REGION', at.s3Region);
  }
  if (c.admin) {
    const base = `${listenUrl(at.http)}/client/v4`;
    put('CLOUDFLARE_API_BASE_URL', base);
    if (c.admin.api_token) put('CLOUDFLARE_API_TOKEN', c.admin.api_token);
    else {
      put('CLOUDFLARE_EMAIL', c.admin.email);
      put('CLOUDFLARE_API_KEY', c.admin.key);
    }
    const account = await accountId(base, c.admin);
    if (account.id !== undefined) put('CLOUDFLARE_ACCOUNT_ID', account.id);
    else lines.push(`# CLOUDFLARE_ACCOUNT_ID not set: ${account.why} (start stratus serve, then run this again)`);
  }
  return `${lines.join('\n')}\n`;
}

/** The first account the admin sees, from the running v4 API. */
async function accountId(base: string, admin: NonNullable<SavedCredentials['admin']>): Promise<{ id?: string; why?: string }> {
  const headers: Record<string, string> = admin.api_token
    ? { authorization: `Bearer ${admin.api_token}` } : { 'x-auth-email': admin.email, 'x-auth-key': admin.key };
  try {
    const res = await fetch(`${base}/accounts`, { headers, signal: AbortSignal.timeout(ACCOUNT_TIMEOUT_MS) });
    const body = await res.json() as { success?: boolean; result?: { id: string }[] };
    const id = body.result?.[0]?.id;
    return id !== undefined && body.success === true ? { id } : { why: `${base}/accounts answered ${res.status} without an account` };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    return { why: `no answer from ${base} (${cause})` };
  }
}

/** `value` in single quotes for a POSIX shell. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}
