import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { defaultLogFormat, logDestination, prettyLine } from './log-format.js';

describe('log format', () => {
  it('defaults to pretty on a terminal and JSON otherwise', () => {
    expect(defaultLogFormat(true)).toBe('pretty');
    expect(defaultLogFormat(false)).toBe('json');
    expect(defaultLogFormat(undefined)).toBe('json');
  });

  it('renders a JSON line as time, level, component, message and fields', () => {
    const time = Date.UTC(2026, 10, 25, 12, 0, 1, 234);
    const line = JSON.stringify({ level: 30, time, component: 'access', listener: 'v4', method: 'GET', route: '/client/v4/zones', status: 200, note: 'two words', msg: 'GET /client/v4/zones 200' });
    expect(prettyLine(line)).toBe('12:00:01.234 INFO  [access v4] GET /client/v4/zones 200 method=GET route=/client/v4/zones status=200 note="two words"\n');
  });

  it('shows an error with its stack below the line, and passes text that is not JSON', () => {
    const out = prettyLine(JSON.stringify({ level: 50, time: 0, msg: 'failed', err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at f (x.js:1:1)' } }));
    expect(out).toBe('00:00:00.000 ERROR failed err="Error: boom"\n    at f (x.js:1:1)\n');
    expect(prettyLine('plain text')).toBe('plain text\n');
  });

  it('is a pino destination: a real logger writes pretty lines through it', () => {
    let written = '';
    const out = { write: (s: string) => { written += s; return true; }, isTTY: false } as unknown as NodeJS.WritableStream;
    pino({ level: 'info', base: undefined }, logDestination('pretty', out)).child({ component: 'dns-server' }).warn({ zones: 3 }, 'slow start');
    expect(written).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN  \[dns-server\] slow start zones=3\n$/);
  });
});
