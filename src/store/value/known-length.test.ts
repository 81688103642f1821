import { describe, expect, it } from 'vitest';
import { FixedLengthStream, knownLength, withKnownLength } from './known-length.js';

describe('known-length streams', () => {
  it('registers lengths, keeps them across tee, and leaves plain streams unknown', () => {
    const s = withKnownLength(new Blob(['abc']).stream(), 3);
    expect(knownLength(s)).toBe(3);
    const [a, b] = s.tee();
    expect(knownLength(a)).toBe(3);
    expect(knownLength(b)).toBe(3);
    expect(knownLength(new ReadableStream())).toBeUndefined();
    expect(() => withKnownLength(new ReadableStream(), -1)).toThrow(RangeError);
  });
  it('FixedLengthStream: readable has the length; closing short errors like the runtime', async () => {
    const f = new FixedLengthStream(4);
    expect(knownLength(f.readable)).toBe(4);
    const w = f.writable.getWriter();
    const read = new Response(f.readable).text();
    await w.write(new TextEncoder().encode('ab'));
    await w.close().catch(() => undefined);
    await expect(read).rejects.toThrow('FixedLengthStream did not see all expected bytes before close().');
  });
});
