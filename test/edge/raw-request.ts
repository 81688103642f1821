/** A raw HTTP/1.1 exchange over a socket, for what `http.request` will not send as asked (chunked framing by hand). */
import net from 'node:net';

/** The answer of {@link rawExchange}: status and the whole text received. */
export interface RawAnswer {
  status: number;
  text: string;
}

/**
 * Connects to `baseUrl`, writes `head` (request line and headers, without the blank line) and then each of
 * `chunks` as one HTTP chunk, then the last chunk unless `unfinished`; resolves with what comes back once the
 * answer's Content-Length is complete (or its last chunk came) or the server closes.
 */
export function rawExchange(baseUrl: string, head: string, chunks: Buffer[], opts: { unfinished?: boolean } = {}): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let got = Buffer.alloc(0);
    let done = false;
    const finish = () => {
      if (done) return;
      const text = got.toString('latin1');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      if (status === 0) { reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`)); return; }
      done = true;
      socket.destroy();
      resolve({ status, text });
    };
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      const text = got.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
      if (end >= 0 && length && got.length >= end + 4 + Number(length[1])) finish();
      // a chunked answer (a response streamed through the front) is whole at its last chunk
      if (end >= 0 && /\r\ntransfer-encoding: *chunked/i.test(text.slice(0, end)) && text.endsWith('\r\n0\r\n\r\n')) finish();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', (err) => { if (got.length > 0) finish(); else reject(err); });
    socket.on('connect', () => {
      socket.write(`${head}\r\ntransfer-encoding: chunked\r\n\r\n`);
      for (const c of chunks) socket.write(Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]));
      if (!opts.unfinished) socket.write('0\r\n\r\n');
    });
  });
}
