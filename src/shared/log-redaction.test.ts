import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { redactError, redactText } from './log-redaction.js';
import { loggerOptions } from './logger.js';

describe('log redaction', () => {
  it('removes header values and key tuples from error texts', () => {
    expect(redactText('Headers.append: "Bearer abc\\u0000" is an invalid header value.')).toBe('Headers.append: "[redacted]" is an invalid header value.');
    expect(redactText('Key (value_hash)=(deadbeef) already exists.')).toBe('Key (value_hash)=([redacted]) already exists.');
    expect(redactText('Key (email, x)=(a@b.c, f(1)) already exists.')).toBe('Key (email, x)=([redacted]) already exists.');
  });

  it('drops driver value fields and cleans causes', () => {
    const out = redactError({ type: 'Error', message: 'duplicate', detail: 'Key (name)=(x) already exists.', where: 'w', cause: { message: 'Headers.set: "k" is an invalid header value.' } });
    expect(out).toEqual({ type: 'Error', message: 'duplicate', detail: '[redacted]', where: '[redacted]', cause: { message: 'Headers.set: "[redacted]" is an invalid header value.' } });
  });

  it('a logger made with loggerOptions redacts credential fields at the top and one level down', () => {
    const lines: string[] = [];
    const logger = pino(loggerOptions('info'), new Writable({ write(c: Buffer, _e, done) { lines.push(c.toString()); done(); } }));
    logger.info({ authorization: 'SECRET1', headers: { 'x-auth-key': 'SECRET2', 'x-amz-server-side-encryption-customer-key': 'SECRET3', host: 'h' }, secretAccessKey: 'SECRET4' }, 'm');
    const err = Object.assign(new Error('duplicate key value violates unique constraint'), { detail: 'Key (value_hash)=(SECRET5) already exists.' });
    logger.error({ err }, 'failed');
    const text = lines.join('');
    for (const s of ['SECRET1', 'SECRET2', 'SECRET3', 'SECRET4', 'SECRET5']) expect(text).not.toContain(s);
    expect(text).toContain('"host":"h"');
  });
});
