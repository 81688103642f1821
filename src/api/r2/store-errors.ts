/**
 * Binding errors (`Error("<action>: <message> (<code>)")` with a numeric `code`; TypeError and RangeError
 * for bad arguments) as v4 errors: the same code and message, the status of the store's catalogue entry.
 */
import { AppError } from '../../shared/errors.js';
import { StoreCodes } from '../../store/errors.js';
import { invalidArgument } from './errors.js';

const STATUS = new Map<number, number>(Object.values(StoreCodes).map((e) => [e.code, e.status]));

/** The AppError to answer for a failed bucket operation; rethrows what is not a binding error. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const code = (err as { code?: unknown }).code;
  if (err instanceof Error && typeof code === 'number' && STATUS.has(code)) {
    const message = err.message.replace(/^\w+: /, '').replace(/ \(\d+\)$/, '');
    return new AppError(code, message, STATUS.get(code)!);
  }
  if (err instanceof TypeError || err instanceof RangeError) return invalidArgument(err.message);
  throw err;
}
