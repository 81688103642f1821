/**
 * Where secondary DNS may connect for a tenant: an account's peers are contacted by Stratus (SOA checks and
 * AXFR/IXFR pulls over TCP for incoming zones, NOTIFY over UDP for outgoing ones), so a peer's address passes the
 * same policy as origins and scripts' fetch (edge/address-policy.ts: loopback, private, link-local, shared,
 * unique-local, the mapped and NAT64 forms, this host's own addresses), widened only by the operator's
 * `--transfer-peer-allow`. The policy object is handed down by the caller (main.ts builds it): this room sits
 * below the edge's. The instance's own `--notify` targets and `--transfer-allow` list are not tenants' and are
 * not checked.
 */
import { AppError } from '../shared/errors.js';

/** Error code of a peer whose ip is prohibited (API writes). */
export const PEER_ADDRESS_PROHIBITED = 1294;

/** Decides addresses: the range that refuses one, or undefined when it is permitted. */
export interface PeerAddressPolicy {
  refusal(address: string): string | undefined;
}

/** Why a peer address is refused (undefined: permitted), naming the address, the range and the flag. */
export function peerAddressRefusal(policy: PeerAddressPolicy, address: string): string | undefined {
  const range = policy.refusal(address);
  if (range === undefined) return undefined;
  return `peer address ${address} is not allowed (inside ${range === 'malformed' ? 'no address form' : range}: loopback, private, link-local, shared or this host's own addresses); the operator may allow it with --transfer-peer-allow`;
}

/** The API's error for a prohibited peer ip. */
export function peerAddressError(message: string): AppError {
  return new AppError(PEER_ADDRESS_PROHIBITED, `Invalid ip: ${message}`, 400);
}
