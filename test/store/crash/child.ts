/**
 * Crash-test writer: loops forever doing streamed large puts, small puts, multipart uploads and deletes on a
 * few keys. Every value is `content(seed, size)`; the seed and size are in customMetadata so the verifier
 * can check what it reads. Killed with SIGKILL by the test at a random moment.
 */
import { openBucketStore } from '../../../src/store/open.js';
import { withKnownLength } from '../../../src/store/value/known-length.js';
import { content } from './content.js';

const MiB = 1024 * 1024;
const dataDir = process.argv[2]!;
const tag = process.argv[3] ?? 'c';

function stream(seed: string, size: number): ReadableStream<Uint8Array> {
  let pos = 0;
  return withKnownLength(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pos >= size) return controller.close();
        const n = Math.min(256 * 1024, size - pos);
        controller.enqueue(content(seed, n, pos));
        pos += n;
      },
    }),
    size,
  );
}

const store = await openBucketStore({ dataDir, sweepOnOpen: false, gcDelayMs: 50 });
const b = store.bucket('crash');
let i = 0;
for (;;) {
  i++;
  const seed = `${tag}-${process.pid}-${i}`;
  const op = i % 5;
  const key = `k${i % 4}`;
  if (op === 0 || op === 1) {
    const size = 1 * MiB + ((i * 7919) % (6 * MiB));
    await b.put(key, stream(seed, size), { customMetadata: { seed, size: String(size) } });
  } else if (op === 2) {
    const size = (i * 131) % 60000;
    await b.put(`s${i % 3}`, content(seed, size), { customMetadata: { seed, size: String(size) } });
  } else if (op === 3) {
    const size = 2 * 5 * MiB + 12345;
    const up = await b.createMultipartUpload(`m${i % 2}`, { customMetadata: { seed, size: String(size) } });
    const parts = [];
    for (let p = 0; p * 5 * MiB < size; p++) {
      const len = Math.min(5 * MiB, size - p * 5 * MiB);
      parts.push(await up.uploadPart(p + 1, content(seed, len, p * 5 * MiB)));
    }
    await up.complete(parts);
  } else {
    await b.delete([`k${(i + 1) % 4}`]);
  }
  process.stdout.write(`op ${i}\n`);
}
