/**
 * NOTIFY (RFC 1996): tells the configured secondaries that a zone changed, over UDP, retrying a few times
 * until a matching response arrives. Targets are `HOST` or `HOST:PORT` (`[v6]:PORT`); the port defaults to 53.
 */
import dgram from 'node:dgram';
import { isIPv6 } from 'node:net';
import { randomInt } from 'node:crypto';
import type { Logger } from '../shared/logger.js';
import type { ZoneSnapshot } from '../dns/snapshot.js';
import { OPCODE, TYPE } from '../dns/wire/constants.js';
import { encodeMessage } from '../dns/wire/message.js';
import { Writer } from '../dns/wire/writer.js';

/** A parsed NOTIFY target. */
export interface NotifyTarget {
  host: string;
  port: number;
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
export function notifyOne(s: ZoneSnapshot, target: NotifyTarget, opts: { tries?: number; timeoutMs?: number } = {}): Promise<boolean> {
  const tries = opts.tries ?? 4;
  const timeoutMs = opts.timeoutMs ?? 1000;
  const id = randomInt(0, 65536);
  const msg = notifyMessage(s, id);
  const socket = dgram.createSocket(isIPv6(target.host) ? 'udp6' : 'udp4');
  return new Promise<boolean>((resolve) => {
    let attempt = 0;
    let timer: NodeJS.Timeout | undefined;
    const done = (ok: boolean) => {
      if (timer) clearTimeout(timer);
      socket.close();
      resolve(ok);
    };
    const send = () => {
      if (attempt++ >= tries) { done(false); return; }
      socket.send(msg, target.port, target.host, () => {});
      timer = setTimeout(send, timeoutMs * attempt);
    };
    socket.on('message', (reply) => {
      if (reply.length >= 12 && reply.readUInt16BE(0) === id && (reply[2]! & 0x80) !== 0) done(true);
    });
    socket.on('error', () => done(false));
    send();
  });
}

/** Sends NOTIFY for a zone to every target in the background, logging the outcome. */
export function notifyAll(s: ZoneSnapshot, targets: readonly NotifyTarget[], logger: Logger): void {
  for (const t of targets) {
    void notifyOne(s, t).then((ok) => {
      if (ok) logger.debug({ zone: s.origin, serial: s.serial, target: t }, 'NOTIFY acknowledged');
      else logger.warn({ zone: s.origin, serial: s.serial, target: t }, 'NOTIFY not acknowledged');
    });
  }
}
