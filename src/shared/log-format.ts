/**
 * Where log lines go and how they look: `json` writes pino's own lines (one JSON object per line) to stdout;
 * `pretty` turns each of them into one human-readable line (`12:00:01.234 INFO  [dns-server] message k=v`,
 * time in UTC) with the error's stack below it. No transport and no worker thread: the pretty destination is
 * a synchronous stream that parses the line pino hands it, so lines keep their order with anything else the
 * process prints. Redaction happens before a line reaches either destination.
 */
import { pino, type DestinationStream } from 'pino';

/** How log lines look: pino's JSON lines, or one readable line each (`--log-format`). */
export type LogFormat = 'json' | 'pretty';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const COLORS: Record<number, string> = { 10: '90', 20: '36', 30: '32', 40: '33', 50: '31', 60: '35' };
/** Fields shown elsewhere on the line, or not at all. */
const HIDDEN = new Set(['level', 'time', 'msg', 'component', 'listener', 'pid', 'hostname', 'err']);

/** The format when none is configured: pretty on a terminal, JSON otherwise (pipes, files, log collectors). */
export function defaultLogFormat(isTty: boolean | undefined): LogFormat {
  return isTty ? 'pretty' : 'json';
}

/** The destination of a root logger writing `format` to `out` (stdout by default). */
export function logDestination(format: LogFormat, out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): DestinationStream {
  if (format === 'json') return out === process.stdout ? pino.destination({ dest: 1, sync: true }) : out;
  const color = out.isTTY === true;
  return { write: (line: string) => { out.write(prettyLine(line, color)); } };
}

/** One JSON log line as human-readable text (ending with a newline); lines that are not JSON pass unchanged. */
export function prettyLine(line: string, color = false): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = typeof o.level === 'number' ? o.level : 30;
  const name = (LEVELS[level] ?? String(level)).padEnd(5);
  const time = typeof o.time === 'number' ? new Date(o.time).toISOString().slice(11, 23) : typeof o.time === 'string' ? o.time : '';
  const where = [o.component, o.listener].filter((v) => typeof v === 'string').join(' ');
  const parts = [time, color ? `\u001b[${COLORS[level] ?? '0'}m${name}\u001b[0m` : name];
  if (where) parts.push(`[${where}]`);
  if (typeof o.msg === 'string') parts.push(o.msg);
  for (const [k, v] of Object.entries(o)) if (!HIDDEN.has(k) && v !== undefined) parts.push(`${k}=${value(v)}`);
  let text = parts.join(' ');
  const err = o.err as { type?: string; message?: string; stack?: string } | undefined;
  if (err && typeof err === 'object') {
    text += ` err=${value(`${err.type ?? 'Error'}: ${err.message ?? ''}`)}`;
    if (typeof err.stack === 'string') text += `\n    ${err.stack.split('\n').slice(1).map((l) => l.trim()).join('\n    ')}`;
  }
  return `${text}\n`;
}

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}
