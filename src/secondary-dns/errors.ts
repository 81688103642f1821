/** Error codes of the secondary DNS routes (Stratus's own: production's are not recorded). */
import { AppError } from '../shared/errors.js';

/** A TSIG, peer, ACL or outgoing body with a bad field. */
export const INVALID_SECONDARY_DNS = 1290;
/** Outgoing settings created twice, or read, changed, enabled or disabled before they exist. */
export const OUTGOING_STATE = 1291;

/** The 404 + 7003 of an id that is unknown or another account's. */
export function notFound(path: string): AppError {
  return new AppError(7003, `Could not route to ${path}, perhaps your object identifier is invalid?`, 404);
}

/** Incoming settings on a zone that is not secondary, created twice, or read, changed or forced before they exist. */
export const INCOMING_STATE = 1293;
