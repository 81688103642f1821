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
 * answer is complete (its Content-Length, or its last chunk) or the server closes.
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
      if (answerComplete(got.toString('latin1'))) finish();
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

/**
 * Whether `text` holds a whole answer: its head, then as many bytes as its Content-Length says, or a chunked body
 * up to its last chunk and trailers (a keep-alive connection stays open after either, so its end tells nothing).
 */
function answerComplete(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const head = text.slice(0, end);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length) return text.length >= end + 4 + Number(length[1]);
  if (!/\r\ntransfer-encoding: *chunked/i.test(head)) return false;
  for (let at = end + 4; ;) {
    const line = text.indexOf('\r\n', at);
    if (line < 0) return false;
    const size = parseInt(text.slice(at, line), 16);
    if (Number.isNaN(size)) return false;
    if (size === 0) return text.indexOf('\r\n\r\n', line) >= 0; // the last chunk's line, trailers, a blank line
    at = line + 2 + size + 2;
  }
}
