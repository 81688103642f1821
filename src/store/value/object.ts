/**
 * The object values scripts see: `StoreObject` (class HeadResult, metadata only) and `StoreObjectBody`
 * (class GetResult, plus a body that reads once). Metadata fields are own, enumerable, read-only properties
 * in the runtime's order (reference §5.1); `body` and `bodyUsed` are prototype getters.
 */
import type { ObjectRecord } from '../ports.js';
import { Checksums } from '../checksums.js';
import { toHttpMetadata, writeHttpHeaders } from '../metadata.js';
import type { StoreHTTPMetadata, StoreObject, StoreObjectBody } from '../types.js';
import { withKnownLength } from './known-length.js';

/** Which metadata kinds a value carries (list entries may lack them). */
export interface Include {
  http: boolean;
  custom: boolean;
}

const ALL: Include = { http: true, custom: true };

/** The runtime's message for reading a body twice. */
export const BODY_USED_MESSAGE = 'Body has already been used. It can only be used once. Use tee() first if you need to read it twice.';

function define(target: object, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: false, configurable: false });
}

/** Metadata of a stored object. */
export class HeadResult implements StoreObject {
  declare readonly key: string;
  declare readonly version: string;
  declare readonly size: number;
  declare readonly etag: string;
  declare readonly httpEtag: string;
  declare readonly checksums: Checksums;
  declare readonly uploaded: Date;
  declare readonly httpMetadata: StoreHTTPMetadata | undefined;
  declare readonly customMetadata: Record<string, string> | undefined;
  declare readonly range: { offset: number; length: number } | undefined;
  declare readonly storageClass: string;
  declare readonly ssecKeyMd5: string | undefined;

  constructor(rec: ObjectRecord, range?: { offset: number; length: number }, include: Include = ALL) {
    define(this, 'ssecKeyMd5', rec.ssec?.keyMd5);
    define(this, 'storageClass', rec.storageClass);
    define(this, 'range', range ? { offset: range.offset, length: range.length } : undefined);
    define(this, 'customMetadata', include.custom ? { ...rec.customMetadata } : undefined);
    define(this, 'httpMetadata', include.http ? toHttpMetadata(rec.httpMetadata) : undefined);
    define(this, 'uploaded', new Date(rec.uploaded));
    define(this, 'checksums', new Checksums(rec.checksums));
    define(this, 'httpEtag', `"${rec.etag}"`);
    define(this, 'etag', rec.etag);
    define(this, 'size', rec.size);
    define(this, 'version', rec.version);
    define(this, 'key', rec.key);
  }

  /** Applies httpMetadata to `headers`, overwriting the headers of present fields. */
  writeHttpMetadata(headers: Headers): void {
    if (!this.httpMetadata) {
      throw new TypeError(`HTTP metadata unknown for key \`${this.key}\`. Did you forget to add 'httpMetadata' to \`include\` when listing?`);
    }
    writeHttpHeaders(this.httpMetadata, headers);
  }
}

/** Releases the blobs of bodies that were dropped without being read or cancelled. */
const abandoned = new FinalizationRegistry<() => Promise<void>>((release) => {
  release().catch(() => undefined);
});

/** A release function that runs once and stops the finalizer; built outside any `this` scope. */
function releaser(release: () => Promise<void>): () => Promise<void> {
  let released = false;
  const finish = async (): Promise<void> => {
    if (released) return;
    released = true;
    abandoned.unregister(finish);
    await release();
  };
  return finish;
}

/** A stored object with a body that can be read once. */
export class GetResult extends HeadResult implements StoreObjectBody {
  #stream: ReadableStream<Uint8Array> | undefined;
  #used = false;
  readonly #chunks: AsyncIterator<Uint8Array>;
  readonly #finish: () => Promise<void>;
  /** The bytes when they are in memory and the stream was never asked for: `bytes()` then takes them as they are. */
  #whole: Uint8Array | undefined;

  /**
   * `chunks` yields exactly `range.length` bytes; `release` runs once the body is finished or abandoned;
   * `whole`, when given, is those same bytes already in memory (an inline body).
   */
  constructor(rec: ObjectRecord, range: { offset: number; length: number }, chunks: AsyncIterator<Uint8Array>, release: () => Promise<void>, whole?: Uint8Array) {
    super(rec, range);
    this.#chunks = chunks;
    this.#finish = releaser(release);
    this.#whole = whole;
    // Bytes in memory hold nothing to release; a blob's reader is released when the value is dropped unread.
    if (!whole) abandoned.register(this, this.#finish, this.#finish);
  }

  #makeStream(): ReadableStream<Uint8Array> {
    const chunks = this.#chunks;
    const finish = this.#finish;
    this.#whole = undefined;
    return withKnownLength(
      new ReadableStream<Uint8Array>(
        {
          pull: async (controller) => {
            this.#used = true;
            try {
              const { done, value } = await chunks.next();
              if (done) {
                await finish();
                controller.close();
              } else {
                controller.enqueue(value);
              }
            } catch (err) {
              await finish().catch(() => undefined);
              controller.error(err);
            }
          },
          cancel: async () => {
            this.#used = true;
            await chunks.return?.();
            await finish();
          },
        },
        { highWaterMark: 0 },
      ),
      this.range!.length,
    );
  }

  /** The value, as a stream (the same object on every access; made on the first). */
  get body(): ReadableStream<Uint8Array> {
    if (!this.#stream) {
      this.#stream = this.#makeStream();
      // Read through `bytes()` already: the stream is as a read one is, locked to the reader that read it.
      if (this.#used) this.#stream.getReader();
    }
    return this.#stream;
  }

  /** True once the body has been disturbed (read from or cancelled). */
  get bodyUsed(): boolean {
    return this.#used;
  }

  async bytes(): Promise<Uint8Array> {
    if (this.#used || this.#stream?.locked) throw new TypeError(BODY_USED_MESSAGE);
    const whole = this.#whole;
    if (whole && !this.#stream) {
      this.#used = true;
      this.#whole = undefined;
      return whole;
    }
    const stream = this.body;
    this.#used = true;
    const reader = stream.getReader();
    const parts: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      total += value.byteLength;
    }
    const out = new Uint8Array(total);
    let pos = 0;
    for (const p of parts) {
      out.set(p, pos);
      pos += p.byteLength;
    }
    return out;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer as ArrayBuffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json<T = unknown>(): Promise<T> {
    return JSON.parse(await this.text()) as T;
  }

  async blob(): Promise<Blob> {
    const bytes = await this.bytes();
    return new Blob([bytes as Uint8Array<ArrayBuffer>], { type: this.httpMetadata?.contentType ?? '' });
  }
}
