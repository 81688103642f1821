/**
 * NOTIFY (RFC 1996): tells the configured secondaries that a zone changed, over UDP, retrying with a growing
 * delay (1 s, 2 s, 3 s ...) until a matching response arrives. Targets are `HOST` or `HOST:PORT`
 * (`[v6]:PORT`); the port defaults to 53. A target with a TSIG key (a zone's peer) gets the NOTIFY signed.
 * Timers are unref'd; an aborted signal (the server closing) stops every retry.
 */
import dgram from 'node:dgram';
import { isIPv6 } from 'node:net';
import { randomInt } from 'node:crypto';
import type { Logger } from '../shared/logger.js';
import type { ZoneSnapshot } from '../dns/snapshot.js';
import { OPCODE, TYPE } from '../dns/wire/constants.js';
import { encodeMessage } from '../dns/wire/message.js';
import { Writer } from '../dns/wire/writer.js';
import { signRequest, type TsigKey } from '../dns/tsig.js';

/** A parsed NOTIFY target. */
export interface NotifyTarget {
  host: string;
  port: number;
  /** Signs the NOTIFY (RFC 8945). */
  key?: TsigKey;
}

/** Parses `HOST`, `HOST:PORT` or `[V6]:PORT`. */
export function parseNotifyTarget(text: string): NotifyTarget {
  const m = /^(?:\[([^\]]+)\]|([^:\s]+))(?::(\d{1,5}))?$/.exec(text.trim());
  if (m) return { host: (m[1] ?? m[2])!, port: m[3] ? Number(m[3]) : 53 };
  if (isIPv6(text.trim())) return { host: text.trim(), port: 53 };
  throw new RangeError(`bad notify target "${text}"`);
}

/** The NOTIFY message for a zone (SOA in the answer section, RFC 1996 §3.7). */
export function notifyMessage(s: ZoneSnapshot, id: number): Buffer {
  const w = new Writer(512);
  encodeMessage(w, {
    id, qr: false, opcode: OPCODE.NOTIFY, aa: true, rd: false, rcode: 0,
    question: { name: s.origin, type: TYPE.SOA, klass: 1 },
    answers: s.soa.records, authorities: [], additionals: [],
  });
  return w.result();
}

/** Sends NOTIFY for the zone to one target; resolves true when it was acknowledged. */
export function notifyOne(s: ZoneSnapshot, target: NotifyTarget, opts: { tries?: number; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<boolean> {
  const tries = opts.tries ?? 4;
  const timeoutMs = opts.timeoutMs ?? 1000;
  const id = randomInt(0, 65536);
  const plain = notifyMessage(s, id);
  const msg = target.key ? signRequest(plain, target.key).message : plain;
  if (opts.signal?.aborted) return Promise.resolve(false);
  const socket = dgram.createSocket(isIPv6(target.host) ? 'udp6' : 'udp4');
  socket.unref();
  return new Promise<boolean>((resolve) => {
    let attempt = 0;
    let timer: NodeJS.Timeout | undefined;
    let finished = false;
    const done = (ok: boolean) => {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', abort);
      socket.close();
      resolve(ok);
    };
    const abort = () => done(false);
    opts.signal?.addEventListener('abort', abort);
    const send = () => {
      if (attempt++ >= tries) { done(false); return; }
      socket.send(msg, target.port, target.host, () => {});
      timer = setTimeout(send, timeoutMs * attempt);
      timer.unref();
    };
    socket.on('message', (reply) => {
      if (reply.length >= 12 && reply.readUInt16BE(0) === id && (reply[2]! & 0x80) !== 0) done(true);
    });
    socket.on('error', () => done(false));
    send();
  });
}

/** Sends NOTIFY for a zone to every target in the background, logging the outcome. */
export function notifyAll(s: ZoneSnapshot, targets: readonly NotifyTarget[], logger: Logger, signal?: AbortSignal): void {
  for (const t of targets) {
    const target = { host: t.host, port: t.port, ...(t.key ? { key: t.key.name } : {}) };
    void notifyOne(s, t, { signal }).then((ok) => {
      if (ok) logger.debug({ zone: s.origin, serial: s.serial, target }, 'NOTIFY acknowledged');
      else if (!signal?.aborted) logger.warn({ zone: s.origin, serial: s.serial, target }, 'NOTIFY not acknowledged');
    });
  }
}
