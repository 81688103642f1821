/** The shapes a query arrives in and its answers leave in, shared by the handler and what observes it (query-log.ts). Types only. */

/** Where a query came from. */
export interface QueryOrigin {
  transport: 'udp' | 'tcp';
  address: string;
}

/**
 * Messages whose memory is lent (framed-parts.ts: a streamed transfer's shared chunks): the sender calls `release`
 * once the connection has taken their bytes (or closed), never before, and reads them no more after it.
 */
export type TransferPart = Buffer[] & {
  release?: () => void;
  /**
   * The buffers are the TCP stream itself, every message already behind its two-byte length (framed-parts.ts),
   * not one buffer per message: how the DNS thread hands over a transfer's parts (a view per chunk, not per message).
   */
  framed?: boolean;
};

/**
 * Zero or more response messages (several for AXFR). A streamed zone transfer carries `more`: each call gives
 * the next messages (possibly none yet, possibly after a wait), undefined when the transfer is complete; the
 * sender calls it again once the connection has taken what it has (axfr.ts).
 */
export type Responses = TransferPart & {
  more?: () => TransferPart | undefined | Promise<TransferPart | undefined>;
  /**
   * A TCP transfer of a zone with outgoing settings: the zone whose `last_transferred_time` the sender records
   * once the transfer's last message has been taken by the connection (listeners.ts), never before: a client
   * that goes away sooner has not been transferred the zone.
   */
  transferOf?: string;
};
