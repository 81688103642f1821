/**
 * Knot (knotd) as a peer in transfer tests: the head of its configuration that every test writes the same way
 * (its run folder, its listener on loopback, its control socket, its database, its log on stderr).
 */

/** The `server`, `control`, `database` and `log` sections of a knot.conf kept in `dir`, listening on `port`. */
export function knotConfigHead(dir: string, port: number): string {
  return `
server:
    rundir: "${dir}"
    listen: 127.0.0.1@${port}
control:
    listen: "${dir}/knot.sock"
database:
    storage: "${dir}/db"
log:
  - target: stderr
    any: info
`;
}
