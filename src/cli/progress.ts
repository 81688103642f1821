/**
 * Progress of a long command on stderr: a bar redrawn in place on a terminal
 * (`importing example.com [########------------]  40%  4000/10000 records`), one plain line per step
 * otherwise (logs and CI keep every line readable).
 */

/** A progress display of `total` units. */
export class Progress {
  private last = '';

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly label: string,
    private readonly total: number,
    private readonly unit = 'records',
  ) {}

  /** Shows `done` units of the total. */
  update(done: number): void {
    const shown = Math.min(done, this.total);
    const pct = this.total === 0 ? 100 : Math.floor((shown / this.total) * 100);
    if (!this.out.isTTY) {
      const line = `${this.label}: ${shown}/${this.total} ${this.unit} (${pct}%)`;
      if (line !== this.last) this.out.write(`${line}\n`);
      this.last = line;
      return;
    }
    const width = 30;
    const filled = this.total === 0 ? width : Math.round((shown / this.total) * width);
    this.out.write(`\r${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(pct).padStart(3)}%  ${shown}/${this.total} ${this.unit}`);
  }

  /** Ends the display (a terminal's bar line is closed with a newline). */
  finish(): void {
    if (this.out.isTTY) this.out.write('\n');
  }
}
