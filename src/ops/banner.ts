/**
 * What `stratus serve` tells its operator (listeners, generated credentials, stopping) in the log format:
 * `pretty` prints plain `stratus: …` lines; `json` makes each one a log line (`component: "stratus"`, always
 * written whatever the log level) with the address in fields. Generated credentials are printed in the
 * pretty format only, on a terminal that someone reads once; in JSON, which goes to log collectors, the line
 * says which file holds them (mode 0600) and shows no secret.
 */
import type { Logger } from '../shared/logger.js';
import type { LogFormat } from '../shared/log-format.js';

/** The operator-facing lines of one `stratus serve`. */
export class Banner {
  private readonly log: Logger;

  constructor(private readonly format: LogFormat, logger: Logger, private readonly out: NodeJS.WritableStream = process.stdout) {
    this.log = logger.child({ component: 'stratus' }, { level: 'info' });
  }

  /** One line: `text` (the JSON line's `msg`) with `fields` in JSON. */
  say(text: string, fields: Record<string, unknown> = {}): void {
    if (this.format === 'pretty') this.out.write(`stratus: ${text}\n`);
    else this.log.info(fields, text);
  }

  /**
   * Generated credentials: `lines` (with the secrets) in the pretty format; in JSON only `summary` and the
   * `fields` (which must hold no secret).
   */
  secret(summary: string, lines: string[], fields: Record<string, unknown>): void {
    if (this.format === 'pretty') this.out.write(`stratus: ${summary}:\n${lines.map((l) => `  ${l}\n`).join('')}`);
    else this.log.warn(fields, `${summary}; the values are printed only with --log-format pretty: read them from the file`);
  }
}
