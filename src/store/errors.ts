/**
 * Errors of the bucket binding. Service-side failures surface to scripts as a plain `Error` whose message is
 * `"<action>: <message> (<code>)"` (reference §2.1); inside the library they are `StoreServiceError`
 * (an AppError with a stable code) and `toBindingError` renders them at the binding boundary.
 */
import { AppError } from '../shared/errors.js';
import { StorageFullError, UnavailableError } from '../shared/faults.js';

/** The binding's v4 codes with their exact messages (reference §9). */
export const StoreCodes = {
  InternalError: { code: 10001, status: 500, message: 'We encountered an internal error. Please try again.' },
  EntityTooSmall: { code: 10011, status: 400, message: 'Your proposed upload is smaller than the minimum allowed object size.' },
  MetadataTooLarge: { code: 10012, status: 400, message: 'Your metadata headers exceed the maximum allowed metadata size.' },
  InvalidObjectName: { code: 10020, status: 400, message: 'The specified object name is not valid.' },
  InvalidMaxKeys: { code: 10022, status: 400, message: 'MaxKeys params must be positive integer <= 1000.' },
  NoSuchUpload: { code: 10024, status: 404, message: 'The specified multipart upload does not exist.' },
  InvalidPart: { code: 10025, status: 400, message: 'One or more of the specified parts could not be found.' },
  InvalidArgument: { code: 10029, status: 400, message: 'Metadata missing or invalid' },
  BadDigest: { code: 10037, status: 400, message: 'The checksum you specified did not match what we received.' },
  InvalidRange: { code: 10039, status: 416, message: 'The requested range is not satisfiable' },
  ServiceUnavailable: { code: 10043, status: 503, message: 'Service temporarily unavailable. Please try again.' },
  BadUpload: { code: 10048, status: 400, message: 'There was a problem with the multipart upload.' },
  EntityTooLarge: { code: 100100, status: 400, message: 'Your proposed upload exceeds the maximum allowed object size.' },
} as const;

/** Names of the codes above. */
export type StoreCodeName = keyof typeof StoreCodes;

/** The binding's actions, used as the message prefix. */
export type StoreAction =
  | 'head'
  | 'get'
  | 'put'
  | 'delete'
  | 'list'
  | 'createMultipartUpload'
  | 'uploadPart'
  | 'completeMultipartUpload'
  | 'abortMultipartUpload';

/** A service-side failure of a bucket operation. */
export class StoreServiceError extends AppError {
  constructor(name: StoreCodeName, message?: string) {
    const entry = StoreCodes[name];
    super(entry.code, message ?? entry.message, entry.status);
    this.name = 'StoreServiceError';
  }
}

/** A broken storage invariant (missing or short blob, ...): reported to scripts as 10001 InternalError. */
export class StoreInvariantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreInvariantError';
  }
}

/** Shorthand: throws the named service error. */
export function fail(name: StoreCodeName, message?: string): never {
  throw new StoreServiceError(name, message);
}

/**
 * Turns a failure inside an operation into what the binding rejects with: service errors become a plain
 * `Error("<action>: <message> (<code>)")`, client argument errors (TypeError, RangeError, plain Error) pass
 * through unchanged, and anything unexpected becomes `10001` InternalError (after being logged by the caller).
 */
export function toBindingError(action: StoreAction, err: unknown): Error {
  if (err instanceof StoreServiceError) return bindingError(action, err.code, err.message);
  // A backing store is away or the disk is full: 10043 ServiceUnavailable, with the fault as the cause.
  if (err instanceof UnavailableError || err instanceof StorageFullError) return bindingError(action, StoreCodes.ServiceUnavailable.code, err.message, err);
  if (isClientError(err)) return err as Error;
  return bindingError(action, StoreCodes.InternalError.code, StoreCodes.InternalError.message, err);
}

/** What a binding rejection made by {@link toBindingError} carries besides its text. */
interface BindingErrorParts {
  code: number;
  /** The message without the action and the code around it. */
  storeMessage: string;
}

function bindingError(action: StoreAction, code: number, message: string, cause?: unknown): Error {
  const out = new Error(`${action}: ${message} (${code})`, cause === undefined ? undefined : { cause });
  // Not enumerable: a script sees the same own properties as on production's errors.
  Object.defineProperty(out, 'code', { value: code, enumerable: false });
  Object.defineProperty(out, 'storeMessage', { value: message, enumerable: false });
  return out;
}

/** The code and bare message of a binding rejection made by {@link toBindingError}; undefined for any other error. */
export function bindingErrorParts(err: unknown): { code: number; message: string } | undefined {
  if (!(err instanceof Error) || !('storeMessage' in err)) return undefined;
  const parts = err as Error & BindingErrorParts;
  return { code: parts.code, message: parts.storeMessage };
}

/** True for errors that are the caller's fault and must pass through unchanged. */
export function isClientError(err: unknown): boolean {
  return (
    err instanceof TypeError ||
    err instanceof RangeError ||
    err instanceof SyntaxError ||
    err instanceof StoreServiceError ||
    // A plain Error from argument checks; system errors (with a `code`, e.g. ENOENT) are internal.
    (err instanceof Error && err.constructor === Error && !('code' in err))
  );
}
