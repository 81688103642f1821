/**
 * Registers the deprecation schedule's part of the v4 API on the `/client/v4` router: the TE+CL framing rule, the
 * Deprecation/Sunset/Link headers of deprecated routes, the schedule endpoint and the routes Stratus does not
 * provide, zone settings and DNS settings. Call it after the api-date middleware (and after the middleware
 * that sets `services`) and before the other route modules, so that its middleware wraps them.
 */
import type { Hono } from 'hono';
import type { ApiEnv } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { framingMiddleware } from '../middleware/deprecation-framing.js';
import { deprecationMiddleware } from '../middleware/deprecation.js';
import { deprecatedRoutes } from './deprecated.js';
import { zoneSettingsRoutes } from './zone-settings.js';
import { dnsSettingsRoutes } from './dns-settings.js';

/** Adds the lifecycle middleware and routes to the v4 router. */
export function registerDeprecationRoutes(api: Hono<ApiEnv>, deps: ApiDeps): void {
  api.use('*', framingMiddleware());
  api.use('*', deprecationMiddleware());
  api.route('/', deprecatedRoutes(deps));
  api.route('/', zoneSettingsRoutes(deps));
  api.route('/', dnsSettingsRoutes(deps));
}
