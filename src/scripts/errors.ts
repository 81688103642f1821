/**
 * Error codes of the Workers routes (scripts, versions, deployments, secrets, routes, subdomains). Codes and
 * messages follow the production service where they are known (wrangler's own source checks 10007, 10021,
 * 10031, 10032 and 10215); the rest are Stratus's own, listed in the catalogue (error-catalogue.ts).
 */
import { AppError } from '../shared/errors.js';

/** The codes. */
export const WORKERS_CODES = {
  /** The script (or one of its versions, deployments, secrets) does not exist in the account. */
  scriptNotFound: 10007,
  /** A Worker name that is not valid. */
  invalidName: 10016,
  /** A route pattern already in use in the zone. */
  duplicateRoute: 10020,
  /** The upload (metadata, modules, bindings) failed validation. */
  validation: 10021,
  /** A route pattern that is not valid (or not inside its zone). */
  invalidRoute: 10022,
  /** The modules are larger than the limit. */
  tooLarge: 10027,
  /** A route that does not exist. */
  routeNotFound: 10029,
  /** The workers subdomain is taken by another account (wrangler: "Subdomain is unavailable"). */
  subdomainUnavailable: 10031,
  /** A workers subdomain that is not a valid DNS label. */
  invalidSubdomain: 10033,
  /** A secret that does not exist. */
  secretNotFound: 10056,
  /** A deployment body that is not valid. */
  invalidDeployment: 10100,
  /** Secrets can only change when the latest version is the deployed one (wrangler's VERSION_NOT_DEPLOYED). */
  versionNotDeployed: 10215,
} as const;

/** 404, 10007: the script is not in this account (the same answer whether or not another account has one). */
export function scriptNotFound(): AppError {
  return new AppError(WORKERS_CODES.scriptNotFound, 'This Worker does not exist on your account.', 404);
}

/** 400, 10021: an upload problem. */
export function invalidUpload(message: string): AppError {
  return new AppError(WORKERS_CODES.validation, message, 400);
}
