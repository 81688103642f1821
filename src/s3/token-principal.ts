/**
 * S3 key pairs derived from API tokens, as production derives them: access key id = the token's id, secret =
 * the SHA-256 hex of its value. What such a key may do comes from the token's R2 permission groups
 * (`access.ts` names the needs), in the account the request acts in: an account's token acts for that account,
 * a user's token for the user's accounts (the first one unless the host names another). Look-ups are remembered
 * like the v4 API's (`accounts/remembered.ts`): never past the token's `expires_on`, forgotten at once when this
 * process changes a token.
 */
import type { S3Need, S3Principal } from './context.js';
import type { TokensService } from '../accounts/tokens.js';
import type { Clock } from '../shared/clock.js';
import { Remembered, expiryInstant } from '../accounts/remembered.js';

/** A principal resolver for `startS3Server({ tokenPrincipal })`; `clock` is the one the tokens service reads. */
export function tokenPrincipals(tokens: TokensService, clock: Clock): (accessKeyId: string, fresh?: boolean) => Promise<S3Principal | undefined> {
  const remembered = new Remembered<{ principal: S3Principal; expiresOn: string | null }>(clock, (v) => expiryInstant(v.expiresOn));
  return async (accessKeyId, fresh = false) => (await remembered.get(accessKeyId, async () => {
    const found = await tokens.s3Principal(accessKeyId);
    if (!found) return undefined;
    const { grants, user } = found.token;
    const may = (need: S3Need, accountId: string): boolean => user.accountIds.includes(accountId) && ('buckets' in need
      ? grants.allowsAccount(`storage:${need.buckets}`, accountId)
      : grants.allowsBucket(`bucket_item:${need.bucketItems}`, need.bucket, [accountId]));
    const subject = found.token.row.account_id === null ? `user:${user.id}` : `token:${found.token.row.id}`;
    return { principal: { secret: found.secret, subject, accountIds: user.accountIds, may }, expiresOn: found.token.row.expires_on };
  }, fresh))?.principal;
}
