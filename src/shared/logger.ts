import { pino, type Logger } from 'pino';

export type { Logger };

/** The root logger; components take a child (`logger.child({ component: 'dns-server' })`). */
export function createLogger(level: string = process.env.STRATUS_LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: undefined });
}

/** A logger that discards everything (tests, library use). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
