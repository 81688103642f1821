/** Every v4 bucket route (`/accounts/:account_id/r2/…`, and the bucket analytics of `/graphql`), mounted by app.ts when buckets are served. */
import { Hono } from 'hono';
import type { ApiEnv } from '../context.js';
import type { BucketStore } from '../../store/index.js';
import type { TempCredentials } from '../../s3/temp-credentials.js';
import { r2BucketRoutes } from './buckets-routes.js';
import { r2ConfigRoutes } from './config-routes.js';
import { r2ObjectRoutes } from './objects-routes.js';
import { r2TempCredentialRoutes } from './temp-credentials-routes.js';
import { r2GraphqlRoute } from './graphql-route.js';
import { r2DomainRoutes } from './domains-routes.js';
import type { BucketDomains } from '../../scripts/bucket-domains.js';

/** The bucket routes; temporary credentials only when an issuer is given, public domains when their store is. */
export function r2Routes(store: BucketStore, temp: TempCredentials | undefined, domains?: BucketDomains): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  if (domains) app.route('/', r2DomainRoutes(store, domains));
  app.route('/', r2ObjectRoutes(store));
  app.route('/', r2ConfigRoutes(store));
  app.route('/', r2BucketRoutes(store));
  app.route('/', r2GraphqlRoute(store));
  if (temp) app.route('/', r2TempCredentialRoutes(temp, async (accountId, bucket) => (await store.forAccount(accountId).bucketInfo(bucket)) !== null));
  return app;
}
