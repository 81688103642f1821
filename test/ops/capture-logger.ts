/** A real pino logger (the service's options) writing its JSON lines into memory, for tests that read the logs. */
import { pino } from 'pino';
import { loggerOptions, type Logger } from '../../src/shared/logger.js';

/** A logger at `level` and every line it wrote, parsed. */
export function captureLogger(level = 'info'): { logger: Logger; lines: () => Array<Record<string, unknown>>; text: () => string } {
  let text = '';
  const logger = pino(loggerOptions(level), { write: (line: string) => { text += line; } });
  return {
    logger,
    text: () => text,
    lines: () => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** The access lines of one listener. */
export function accessLines(lines: Array<Record<string, unknown>>, listener: string): Array<Record<string, unknown>> {
  return lines.filter((l) => l.component === 'access' && l.listener === listener);
}
