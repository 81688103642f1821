import { pino, stdSerializers, type Logger, type LoggerOptions } from 'pino';
import { redactError } from './log-redaction.js';

export type { Logger };

/**
 * Header and field names whose values are credentials or keys, removed from every log line wherever they
 * appear at the top level or one level down (`{ headers: { authorization } }`). See `log-redaction.ts`.
 */
const SECRET_FIELDS = [
  'authorization', 'x-auth-key', 'x-amz-security-token', 'x-amz-server-side-encryption-customer-key',
  'x-amz-copy-source-server-side-encryption-customer-key', 'cookie', 'secret', 'secretAccessKey', 'secret_access_key',
  'apiToken', 'api_token', 'authKey', 'token', 'value', 'password', 'ssecKey', 'signingKey', 'X-Amz-Signature', 'X-Amz-Credential',
];

/** Options of every logger Stratus makes: no `base`, secrets redacted, errors serialized without values. */
export function loggerOptions(level: string): LoggerOptions {
  const paths = SECRET_FIELDS.flatMap((f) => {
    const key = /^[A-Za-z_$][\w$]*$/.test(f) ? `.${f}` : `["${f}"]`;
    return [key.startsWith('.') ? f : key, `*${key}`];
  });
  return {
    level,
    base: undefined,
    redact: { paths, censor: '[redacted]' },
    serializers: { err: (err: unknown) => redactError(stdSerializers.err(err as Error)) },
  };
}

/** The root logger; components take a child (`logger.child({ component: 'dns-server' })`). */
export function createLogger(level: string = process.env.STRATUS_LOG_LEVEL ?? 'info'): Logger {
  return pino(loggerOptions(level));
}

/** A logger that discards everything (tests, library use). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
