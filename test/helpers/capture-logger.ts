/** A real pino logger whose lines are kept in memory, so tests can search everything a server logged. */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { loggerOptions } from '../../src/shared/logger.js';

/** A logger at `level` (default: debug, everything) and the lines it wrote. */
export function captureLogger(level = 'debug'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
      done();
    },
  });
  return { logger: pino(loggerOptions(level), sink), lines };
}
