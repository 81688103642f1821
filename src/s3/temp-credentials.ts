/**
 * Temporary S3 credentials (`POST /accounts/:account_id/r2/temp-access-credentials`), stateless so every node
 * accepts them: the session token carries what they allow (account, bucket, permission, objects, prefixes,
 * expiry) and a MAC keyed by the parent access key's secret; the secret access key is derived from the same
 * secret and the access key id. A request presents the id, signs with the secret and sends the session token
 * (`x-amz-security-token`, or `X-Amz-Security-Token` in a presigned URL). They are refused once expired
 * (`ExpiredToken`), and as soon as the parent token is deleted, disabled or expires; they never allow more than
 * the parent token's R2 permission groups allow.
 *
 * Permissions, as production names them: `admin-read-write` and `admin-read-only` also allow the bucket's own
 * settings (CORS); `object-read-write` and `object-read-only` allow objects only. `objects` and `prefixes`
 * narrow object access to those keys (a listing must then ask for a prefix inside one of them).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../shared/clock.js';
import type { TokensService } from '../accounts/tokens.js';
import type { S3Need, S3Principal } from './context.js';
import { S3Error } from './errors.js';

/** The four permission levels. */
export const TEMP_PERMISSIONS = ['admin-read-write', 'admin-read-only', 'object-read-write', 'object-read-only'] as const;
/** A permission level. */
export type TempPermission = (typeof TEMP_PERMISSIONS)[number];

/** Longest life of temporary credentials: 7 days. */
export const MAX_TEMP_TTL_SECONDS = 7 * 24 * 60 * 60;

/** What a set of temporary credentials allows (the session token's payload). */
export interface TempGrant {
  accessKeyId: string;
  parentAccessKeyId: string;
  accountId: string;
  bucket: string;
  permission: TempPermission;
  objects: string[];
  prefixes: string[];
  /** Expiry, epoch ms. */
  expires: number;
}

/** Issued credentials, in production's field names. */
export interface IssuedCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
}

const mac = (key: string, label: string, data: string): string => createHmac('sha256', key).update(`${label}\n${data}`).digest('hex');

/** Issues and verifies temporary credentials. */
export class TempCredentials {
  constructor(private readonly tokens: TokensService, private readonly clock: Clock) {}

  /**
   * The parent key's secret and what the parent may do, when `parentAccessKeyId` is a usable API token of
   * someone who may act in `accountId`; else undefined.
   */
  async parent(parentAccessKeyId: string, accountId: string): Promise<{ secret: string; subject: string; may: (need: S3Need) => boolean } | undefined> {
    const found = await this.tokens.s3Principal(parentAccessKeyId);
    if (!found || !found.token.user.accountIds.includes(accountId)) return undefined;
    const { grants } = found.token;
    const may = (need: S3Need): boolean => ('buckets' in need
      ? grants.allowsAccount(`storage:${need.buckets}`, accountId)
      : grants.allowsBucket(`bucket_item:${need.bucketItems}`, need.bucket, [accountId]));
    const subject = found.token.row.account_id === null ? `user:${found.token.user.id}` : `token:${found.token.row.id}`;
    return { secret: found.secret, subject, may };
  }

  /** Whether the parent's own permissions cover `permission` on `bucket` (credentials never exceed their parent). */
  static covers(parentMay: (need: S3Need) => boolean, permission: TempPermission, bucket: string): boolean {
    const write = permission.endsWith('read-write');
    const items = parentMay({ bucketItems: write ? 'edit' : 'read', bucket });
    return permission.startsWith('admin-') ? items && parentMay({ buckets: write ? 'edit' : 'read' }) : items;
  }

  /** New credentials for `grant` (without id and expiry), signed with the parent's secret. */
  issue(parentSecret: string, grant: Omit<TempGrant, 'accessKeyId' | 'expires'>, ttlSeconds: number): IssuedCredentials {
    const accessKeyId = randomBytes(16).toString('hex');
    const full: TempGrant = { ...grant, accessKeyId, expires: this.clock.now().getTime() + ttlSeconds * 1000 };
    const payload = Buffer.from(JSON.stringify(full), 'utf8').toString('base64url');
    return {
      accessKeyId,
      secretAccessKey: mac(parentSecret, 'secret', `${accessKeyId}\n${payload}`),
      sessionToken: `${payload}.${mac(parentSecret, 'session', payload)}`,
    };
  }

  /** The holder of temporary credentials, or undefined when the token is not one of ours; ExpiredToken once expired. */
  async principal(accessKeyId: string, sessionToken: string): Promise<S3Principal | undefined> {
    const [payload, signature, extra] = sessionToken.split('.');
    if (!payload || !signature || extra !== undefined) return undefined;
    let grant: TempGrant;
    try {
      grant = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TempGrant;
    } catch {
      return undefined;
    }
    if (typeof grant !== 'object' || grant === null || grant.accessKeyId !== accessKeyId || typeof grant.parentAccessKeyId !== 'string') return undefined;
    const parent = await this.parent(grant.parentAccessKeyId, grant.accountId);
    if (parent === undefined) return undefined;
    const { secret } = parent;
    const expected = Buffer.from(mac(secret, 'session', payload), 'hex');
    const given = Buffer.from(signature, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    if (this.clock.now().getTime() >= grant.expires) throw new S3Error('ExpiredToken', 'The provided token has expired.', 400);
    return {
      secret: mac(secret, 'secret', `${accessKeyId}\n${payload}`),
      subject: parent.subject, // temporary credentials count against their parent token's holder
      accountIds: [grant.accountId],
      // Never more than the parent may do now (its policies can change after issue).
      may: (need: S3Need, accountId: string) => accountId === grant.accountId && allows(grant, need) && parent.may(need),
      reaches: (bucket, key, listPrefix) => reaches(grant, bucket, key, listPrefix),
    };
  }
}

/** Whether the permission level covers the need (on the grant's bucket only). */
function allows(grant: TempGrant, need: S3Need): boolean {
  const admin = grant.permission.startsWith('admin-');
  const write = grant.permission.endsWith('read-write');
  if ('buckets' in need) return admin && (need.buckets === 'read' || write);
  return need.bucket === grant.bucket && (need.bucketItems === 'read' || write);
}

/** Whether the grant reaches `bucket` and `key` (or, for a listing, keys under `listPrefix`). */
function reaches(grant: TempGrant, bucket: string | undefined, key: string | undefined, listPrefix: string | undefined): boolean {
  if (bucket !== grant.bucket) return false;
  if (grant.objects.length === 0 && grant.prefixes.length === 0) return true;
  if (key !== undefined) return grant.objects.includes(key) || grant.prefixes.some((p) => key.startsWith(p));
  if (listPrefix !== undefined) return grant.prefixes.some((p) => listPrefix.startsWith(p));
  return false;
}
