import { pino, type Logger } from 'pino';
import { logDestination, type LogFormat } from './log-format.js';

export type { Logger };

/**
 * The root logger; components take a child (`logger.child({ component: 'dns-server' })`). `format`: JSON lines
 * (default) or human-readable lines (`log-format.ts`).
 */
export function createLogger(level: string = process.env.STRATUS_LOG_LEVEL ?? 'info', format: LogFormat = 'json'): Logger {
  return pino({ level, base: undefined }, logDestination(format));
}

/** A logger that discards everything (tests, library use). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
