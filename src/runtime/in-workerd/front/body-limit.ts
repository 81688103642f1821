/** The front's count of a request body that has no Content-Length (chunked), against the body limit. */

/** Whether the body went past the limit (set by {@link counted}). */
export interface BodyState {
  over: boolean;
}

/**
 * The body counted as it streams. Past `limit` bytes, state.over is set and the request to the generation is
 * aborted (its connection dropped mid-body), so the script's body read fails; erroring the stream instead
 * can reach the generation as a clean end of a shorter body.
 */
export function counted(body: ReadableStream<Uint8Array>, limit: number, state: BodyState, abort: AbortController): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (state.over) return;
      seen += chunk.byteLength;
      if (seen > limit) {
        state.over = true;
        abort.abort();
        return;
      }
      controller.enqueue(chunk);
    },
  }));
}
