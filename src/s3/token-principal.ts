/**
 * S3 key pairs derived from API tokens, as production derives them: access key id = the token's id, secret =
 * the SHA-256 hex of its value. What such a key may do comes from the token's R2 permission groups
 * (`access.ts` names the needs), in the account the request acts in: an account's token acts for that account,
 * a user's token for the user's accounts (the first one unless the host names another). Look-ups are remembered
 * like the v4 API's (`accounts/remembered.ts`).
 */
import type { S3Need, S3Principal } from './context.js';
import type { TokensService } from '../accounts/tokens.js';
import { Remembered } from '../accounts/remembered.js';

/** A principal resolver for `startS3Server({ tokenPrincipal })`. */
export function tokenPrincipals(tokens: TokensService): (accessKeyId: string) => Promise<S3Principal | undefined> {
  const remembered = new Remembered<S3Principal>();
  return (accessKeyId) => remembered.get(accessKeyId, async () => {
    const found = await tokens.s3Principal(accessKeyId);
    if (!found) return undefined;
    const { grants, user } = found.token;
    const may = (need: S3Need, accountId: string): boolean => user.accountIds.includes(accountId) && ('buckets' in need
      ? grants.allowsAccount(`storage:${need.buckets}`, accountId)
      : grants.allowsBucket(`bucket_item:${need.bucketItems}`, need.bucket, [accountId]));
    return { secret: found.secret, accountIds: user.accountIds, may };
  });
}
