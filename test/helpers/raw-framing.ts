/**
 * Raw-socket probes of HTTP/1.1 framing (RFC 9112): a request as written, then whether the server kept the
 * connection for another request or closed it.
 */
import net from 'node:net';

/** One answer read off the connection. */
export interface RawAnswerHead {
  status: number;
  /** Lowercase header names (the last of repeated ones). */
  headers: Record<string, string>;
  body: string;
}

/** What a server did with a request. */
export interface FramingOutcome {
  /** The answers received, in order: the first is the request's; a second means the connection was kept for the follow-up. */
  answers: RawAnswerHead[];
  /** Status of the first answer (0: the server closed without answering). */
  status: number;
  /** True when the server closed the connection after its first answer (it did not answer the follow-up). */
  closed: boolean;
}

/** Splits `data` into answers (Content-Length, chunked, or until the end); stops at an incomplete one. */
export function parseAnswers(data: Buffer, ended: boolean): { answers: RawAnswerHead[]; complete: boolean } {
  const answers: RawAnswerHead[] = [];
  let at = 0;
  while (at < data.length) {
    const end = data.indexOf('\r\n\r\n', at);
    if (end < 0) return { answers, complete: false };
    const [statusLine, ...lines] = data.subarray(at, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine!)?.[1] ?? 0);
    let bodyStart = end + 4;
    let body: Buffer;
    if (headers['transfer-encoding']?.toLowerCase() === 'chunked') {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = data.indexOf('\r\n', bodyStart);
        if (lineEnd < 0) return { answers, complete: false };
        const size = parseInt(data.subarray(bodyStart, lineEnd).toString('latin1'), 16);
        if (data.length < lineEnd + 2 + size + 2) return { answers, complete: false };
        parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
        bodyStart = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
      at = bodyStart;
    } else if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      if (data.length < bodyStart + length) return { answers, complete: false };
      body = data.subarray(bodyStart, bodyStart + length);
      at = bodyStart + length;
    } else if (status === 204 || status === 304 || (status >= 100 && status < 200)) {
      body = Buffer.alloc(0);
      at = bodyStart;
    } else {
      if (!ended) return { answers, complete: false };
      body = data.subarray(bodyStart);
      at = data.length;
    }
    answers.push({ status, headers, body: body.toString('utf8') });
  }
  return { answers, complete: true };
}

/**
 * Writes `request` (bytes as written) to 127.0.0.1:`port`; once the first answer is complete, writes a
 * follow-up `GET /` with `Connection: close` (a server that kept the connection answers it); resolves once the
 * server has closed the connection or answered the follow-up (a server may close that connection only when its
 * keep-alive timer fires). No timer here: the server either closes after its first answer or answers the follow-up.
 */
export function probeFraming(port: number, request: string | Buffer, followUp: { host?: string; path?: string } = {}): Promise<FramingOutcome> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let followed = false;
    let settled = false;
    const settle = (ended: boolean): void => {
      if (settled) return;
      settled = true;
      const { answers } = parseAnswers(data, ended);
      resolve({ answers, status: answers[0]?.status ?? 0, closed: answers.length <= 1 });
      socket.destroy();
    };
    socket.on('data', (d: Buffer) => {
      data = Buffer.concat([data, d]);
      const { answers } = parseAnswers(data, false);
      if (!followed && answers.length > 0) {
        followed = true;
        if (socket.writable) socket.write(`GET ${followUp.path ?? '/'} HTTP/1.1\r\nHost: ${followUp.host ?? '127.0.0.1'}\r\nConnection: close\r\n\r\n`);
      }
      if (answers.length >= 2) settle(false); // the follow-up answered: the connection was kept
    });
    socket.on('error', (err: NodeJS.ErrnoException) => { if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err); });
    socket.on('end', () => socket.end());
    socket.on('close', () => settle(true));
    socket.write(request);
  });
}
