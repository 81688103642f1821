/** The shapes a query arrives in and its answers leave in, shared by the handler and what observes it (query-log.ts). Types only. */

/** Where a query came from. */
export interface QueryOrigin {
  transport: 'udp' | 'tcp';
  address: string;
}

/**
 * Zero or more response messages (several for AXFR). A streamed zone transfer carries `more`: each call gives
 * the next messages (possibly none yet, possibly after a wait), undefined when the transfer is complete; the
 * sender calls it again once the connection has taken what it has (axfr.ts).
 */
export type Responses = Buffer[] & {
  more?: () => Buffer[] | undefined | Promise<Buffer[] | undefined>;
  /**
   * A TCP transfer of a zone with outgoing settings: the zone whose `last_transferred_time` the sender records
   * once the transfer's last message has been taken by the connection (listeners.ts), never before: a client
   * that goes away sooner has not been transferred the zone.
   */
  transferOf?: string;
};
