/**
 * Per-request state of the v4 API, set by middleware and read by routes: the api date the request is served
 * as of, the authenticated user, and messages to add to the envelope.
 */
import type { ZoneHolds } from '../zones/zone-holds.js';
import type { EnvelopeMessage } from './envelope-message.js';
import type { ZonesService } from '../zones/zones-service.js';
import type { RecordsService } from '../zones/records-service.js';
import type { TokenGrants } from '../accounts/token-policy.js';
import type { RouteRequirement } from './route-permissions.js';
import type { ScriptsService } from '../scripts/scripts-service.js';
import type { RoutesService } from '../scripts/routes-service.js';
import type { SubdomainsService } from '../scripts/subdomains.js';
import type { SettingsStore } from '../zones/settings/settings-store.js';
import type { DnssecService } from '../zones/dnssec/dnssec-service.js';

/** The authenticated caller. */
export interface AuthUser {
  id: string;
  email: string;
  /** Accounts the user may act on. */
  accountIds: string[];
  /** Set when the request authenticated with an API token: what the token may do. */
  token?: {
    id: string;
    /** The owning account of an account-owned token; null for a user's token. */
    accountId: string | null;
    grants: TokenGrants;
    /** The token's `expires_on` (RFC 3339), null when it never expires: remembered authentications end there. */
    expiresOn: string | null;
  };
}

/** Hono variables of a v4 request. */
export interface ApiVariables {
  requestId: string;
  /** YYYY-MM-DD: the date the deprecation schedule is evaluated at for this request. */
  apiDate: string;
  user: AuthUser;
  /** What the route needs from an API token (set for token requests to routes a token may call). */
  requirement?: RouteRequirement;
  /** Extra entries for the envelope's `messages` (deprecation notices, warnings). */
  messages: EnvelopeMessage[];
  /** The services routes call (set for every request). */
  services: ApiServices;
}

/** Services available to routes through `c.get('services')`. */
export interface ApiServices {
  zones: ZonesService;
  records: RecordsService;
  holds: ZoneHolds;
  /** Workers scripts, versions, deployments and secrets. */
  scripts: ScriptsService;
  /** Routes of zones and scripts. */
  workerRoutes: RoutesService;
  /** Accounts' workers subdomains. */
  subdomains: SubdomainsService;
  /** Zone settings and DNS settings of zones and accounts. */
  settings: SettingsStore;
  /** Zones' DNSSEC state. */
  dnssec: DnssecService;
}

/** The Hono environment type of the v4 API. */
export interface ApiEnv {
  Variables: ApiVariables;
}
