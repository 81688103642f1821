/** The address policy of secondary DNS peers (`--transfer-peer-allow`; secondary-dns/peer-address.ts). */
import { AddressPolicy } from '../edge/address-policy.js';
import { hostAddressCidrs } from './start-edge.js';

/**
 * The policy peers' addresses pass, for the API's writes, the pulls and the NOTIFYs alike: the edge's prohibited
 * ranges and this host's own addresses (Stratus's listeners), minus what the operator allowed.
 */
export function transferPeerPolicy(allow: readonly string[]): AddressPolicy {
  return new AddressPolicy({ allow, deny: hostAddressCidrs() });
}
