/** Hand-written HTTP/1.1 requests over a socket, for bytes no HTTP client lets through (control bytes, bad framing). */
import net from 'node:net';

/** A parsed raw response. */
export interface RawHttpResponse {
  status: number;
  /** Lowercase header names. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `request` (bytes as written: end the head with CRLF CRLF and add `Connection: close`) to
 * 127.0.0.1:`port` and reads the answer until the server closes the connection.
 */
export function rawHttp(port: number, request: string | Buffer): Promise<RawHttpResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', (err: NodeJS.ErrnoException) => { if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err); });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return reject(new Error(`no HTTP answer: ${JSON.stringify(text)}`));
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: Buffer.from(text.slice(end + 4), 'latin1').toString('utf8') });
    });
    socket.write(request);
  });
}
