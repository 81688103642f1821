/**
 * The edge's access records behind the nginx front: nginx writes one JSON line per request to a regular file in
 * the runtime's private folder (`nginx-config.ts`: buffered, flushed every 100 ms; a file, never a pipe, so a
 * slow reader never blocks a worker), and this reads it from the last offset on every change of the folder
 * (fs.watch) and on a short timer as a safety net, turning each line into an {@link EdgeAccessRecord}.
 *
 * Rotation: once the file passes `rotateBytes`, it is renamed `<file>.1` and a fresh one made, nginx is told to
 * reopen its logs (SIGUSR1), and the old file is read on until no nginx process holds it open (checked in
 * /proc: the workers write their buffers out before they reopen), then read to its end and deleted. Each byte is
 * read once, so no record is lost or doubled across a rotation, an nginx restart (the new nginx appends to the
 * same file) or a stop ({@link NginxAccessLog.close}, after nginx exited, reads everything left).
 */
import fs from 'node:fs';
import type { Logger } from '../../shared/logger.js';
import type { EdgeAccessRecord } from '../control-service.js';
import { parseAccessLine } from './nginx-access-line.js';

/** Options of {@link NginxAccessLog}. */
export interface NginxAccessLogOptions {
  /** The file nginx's `access_log` names. */
  file: string;
  /** Size past which the file is rotated. */
  rotateBytes: number;
  /** Receives the records read, in the order written. */
  receive(records: EdgeAccessRecord[]): void;
  /** Has nginx reopen its log files (SIGUSR1 to the master); false when nginx does not run. */
  reopen(): boolean;
  /** The pids of nginx's processes (master and workers, old ones finishing included). */
  processes(): number[];
  logger: Logger;
}

/** One file being read: its descriptor, how far it was read, and an unfinished last line. */
interface Source {
  fd: number;
  path: string;
  offset: number;
  rest: Buffer;
}

/** Most bytes read from a file in one go. */
const CHUNK = 256 * 1024;
/**
 * Most records handed to `receive` at a time. Each line is decoded and parsed on its own and its records passed on
 * in small batches, so what a batch makes dies before Node's next young collection but one: a whole flush decoded
 * as one string, split, and parsed into one array outlived two of them (`stratus serve`'s young generation is
 * 1 MiB) and was promoted, most of what the old generation collected under load (docs/edge-performance.md, "Session 20").
 */
const BATCH = 64;
/** An old file still held past this long after a rotation is read to its end and deleted anyway (ms). */
const RELEASE_MS = 60_000;

/** The reader of nginx's access log file. */
export class NginxAccessLog {
  private current: Source;
  private old: (Source & { since: number }) | undefined;
  private readonly watcher: fs.FSWatcher | undefined;
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  private readonly log: Logger;
  /** The read buffer, one for every read (a fresh 256 KiB per change of the file was garbage for the collector). */
  private readonly chunk = Buffer.allocUnsafe(CHUNK);
  /** Rotations done so far. */
  rotations = 0;

  /** Creates the file (nginx appends to it) and starts reading. */
  constructor(private readonly opts: NginxAccessLogOptions) {
    this.log = opts.logger.child({ component: 'edge-front', front: 'nginx' });
    this.current = this.openSource(opts.file);
    this.current.offset = fs.fstatSync(this.current.fd).size; // a file left over is not this run's
    const dir = opts.file.slice(0, opts.file.lastIndexOf('/'));
    const base = opts.file.slice(opts.file.lastIndexOf('/') + 1);
    try {
      this.watcher = fs.watch(dir, { persistent: false }, (_event, name) => { if (name === null || name.startsWith(base)) this.pump(); });
      this.watcher.on('error', () => undefined);
    } catch { /* the timer alone */ }
    this.timer = setInterval(() => this.pump(), 250);
    this.timer.unref();
  }

  private openSource(file: string): Source {
    return { fd: fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_CREAT, 0o600), path: file, offset: 0, rest: Buffer.alloc(0) };
  }

  /** Reads what was written since the last read, hands the records on, and rotates or releases files. */
  pump(): void {
    if (this.closed) return;
    try {
      this.drain(this.current);
      if (this.old) this.release(false);
      if (!this.old && this.current.offset >= this.opts.rotateBytes) this.rotate();
    } catch (err) {
      this.log.warn({ reason: (err as Error).message }, 'reading the access log failed');
    }
  }

  private drain(src: Source): void {
    const buf = this.chunk;
    for (;;) {
      const n = fs.readSync(src.fd, buf, 0, CHUNK, src.offset);
      if (n <= 0) return;
      src.offset += n;
      const bytes = src.rest.length > 0 ? Buffer.concat([src.rest, buf.subarray(0, n)]) : buf.subarray(0, n);
      const end = bytes.lastIndexOf(0x0a);
      // what follows the last line end waits for the rest of its line (copied: buf is reused)
      src.rest = Buffer.from(end < 0 ? bytes : bytes.subarray(end + 1));
      if (src.rest.length > 1024 * 1024) src.rest = Buffer.alloc(0); // no line is this long: not nginx's
      let records: EdgeAccessRecord[] = [];
      for (let start = 0; start < end;) {
        const lineEnd = bytes.indexOf(0x0a, start);
        const record = lineEnd > start ? parseAccessLine(bytes.toString('utf8', start, lineEnd)) : undefined;
        if (record) records.push(record);
        start = lineEnd + 1;
        if (records.length === BATCH) { this.hand(records); records = []; }
      }
      if (records.length > 0) this.hand(records);
    }
  }

  private hand(records: EdgeAccessRecord[]): void {
    try { this.opts.receive(records); } catch (err) { this.log.warn({ reason: (err as Error).message }, 'recording access records failed'); }
  }

  private rotate(): void {
    const aside = `${this.opts.file}.1`;
    fs.renameSync(this.opts.file, aside);
    this.old = { ...this.current, path: aside, since: Date.now() };
    this.current = this.openSource(this.opts.file);
    this.rotations++;
    this.opts.reopen();
  }

  /** Reads the old file on; once no nginx process holds it (or `force`), reads it to its end and deletes it. */
  private release(force: boolean): void {
    const old = this.old!;
    this.drain(old);
    if (!force && Date.now() - old.since < RELEASE_MS && this.held(old.path)) return;
    this.drain(old);
    fs.closeSync(old.fd);
    fs.rmSync(old.path, { force: true });
    this.old = undefined;
  }

  /** Whether a process of nginx has `file` open. */
  private held(file: string): boolean {
    for (const pid of this.opts.processes()) {
      let fds: string[];
      try { fds = fs.readdirSync(`/proc/${pid}/fd`); } catch { continue; }
      for (const fd of fds) {
        try { if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === file) return true; } catch { /* closed meanwhile */ }
      }
    }
    return false;
  }

  /** Reads everything left (call once nginx exited) and stops. */
  close(): void {
    if (this.closed) return;
    try {
      this.drain(this.current);
      if (this.old) this.release(true);
    } catch (err) {
      this.log.warn({ reason: (err as Error).message }, 'reading the access log failed');
    }
    this.closed = true;
    this.watcher?.close();
    clearInterval(this.timer);
    try { fs.closeSync(this.current.fd); } catch { /* closed */ }
  }
}
