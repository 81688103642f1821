/**
 * Progress lines of `stratus backup` and `stratus restore` on standard error: one line per phase, and during
 * the long phases (blobs) a count at most every `everyMs`, so a run of hours shows it is moving without
 * flooding a log.
 */

/** Where lines go (standard error in the CLI; a list in tests). */
export type LineSink = (line: string) => void;

/** `1.5 GiB`, `12.0 KiB`, `512 B`. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${units[u]}`;
}

/** A counter of files and bytes against known totals, printed now and then. */
export class Progress {
  private last = 0;
  private files = 0;
  private bytes = 0;

  constructor(
    private readonly sink: LineSink,
    private readonly prefix: string,
    private readonly everyMs = 2000,
  ) {}

  /** A phase starts. */
  phase(text: string): void {
    this.sink(`${this.prefix}: ${text}`);
  }

  /** Counts a finished file of `size` bytes out of `totalFiles`/`totalBytes`; prints when due. */
  add(size: number, what: string, totalFiles: number, totalBytes: number): void {
    this.files++;
    this.bytes += size;
    const now = Date.now();
    if (now - this.last < this.everyMs && this.files < totalFiles) return;
    this.last = now;
    const pct = totalBytes > 0 ? Math.floor((this.bytes / totalBytes) * 100) : 100;
    this.sink(`${this.prefix}: ${what} ${this.files} of ${totalFiles} (${formatBytes(this.bytes)} of ${formatBytes(totalBytes)}, ${pct}%)`);
  }

  /** Starts counting a new set of files. */
  reset(): void {
    this.files = 0;
    this.bytes = 0;
    this.last = Date.now();
  }
}
