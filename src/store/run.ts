/** The wrapper every binding method runs in: failures become the binding's errors. */
import type { StoreContext } from './context.js';
import { toBindingError, type StoreAction } from './errors.js';

/** Runs an operation, turning failures into the binding's errors (unexpected ones are logged once). */
export async function run<T>(ctx: StoreContext, action: StoreAction, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const out = toBindingError(action, err);
    if (out !== err && out.cause === err) ctx.logger.error({ err, action }, 'store operation failed');
    throw out;
  }
}
