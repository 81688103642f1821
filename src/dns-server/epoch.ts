/**
 * A 4-byte counter in a small file, shared by the DNS server's main process (writer) and its UDP worker
 * processes (readers). Writes and reads are single `pwrite`/`pread` calls on the page cache, so a value
 * written before the API responds is seen by any worker reading afterwards: this is what keeps workers from
 * answering from a stale copy (see udp-workers.ts).
 */
import fs from 'node:fs';

/** The shared counter. */
export class EpochFile {
  private readonly buf = Buffer.alloc(4);
  private value = 0;

  private constructor(readonly path: string, private readonly fd: number) {}

  /** Creates (or truncates) the file for writing. */
  static create(path: string): EpochFile {
    const e = new EpochFile(path, fs.openSync(path, 'w+'));
    e.write(1);
    return e;
  }

  /** Opens an existing file for reading. */
  static open(path: string): EpochFile {
    return new EpochFile(path, fs.openSync(path, 'r'));
  }

  /** The last value this process wrote. */
  get current(): number {
    return this.value;
  }

  /** Adds one and writes it; returns the new value. */
  bump(): number {
    return this.write(this.value + 1);
  }

  private write(v: number): number {
    this.value = v >>> 0;
    this.buf.writeUInt32BE(this.value, 0);
    fs.writeSync(this.fd, this.buf, 0, 4, 0);
    return this.value;
  }

  /** Reads the value on disk. */
  read(): number {
    fs.readSync(this.fd, this.buf, 0, 4, 0);
    return this.buf.readUInt32BE(0);
  }

  /** Closes the file. */
  close(): void {
    try { fs.closeSync(this.fd); } catch { /* already closed */ }
  }
}
