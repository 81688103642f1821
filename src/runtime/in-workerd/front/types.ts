/** The front worker's bindings (front-door.ts writes them). */

/** The front's bindings: Node's control service, and `SLOT<n>` for each runtime slot's Unix socket. */
export interface FrontEnv {
  CONTROL: Fetcher;
  SLOT0: Fetcher;
  [slot: string]: Fetcher;
}
