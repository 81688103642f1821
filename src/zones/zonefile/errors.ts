/**
 * Errors of zone-file import and export and of record batches. Codes 1210..1219 are Stratus's own (the
 * production service documents no codes for these cases); each message says what to fix and, for zone
 * files, on which line.
 */
import { AppError } from '../../shared/errors.js';

/** Stable codes of this module. */
export const ZONEFILE_CODES = {
  /** A line of a zone file cannot be read (syntax, unknown type, bad RDATA, bad directive). */
  syntax: 1210,
  /** `$INCLUDE` in an uploaded zone file. */
  include: 1211,
  /** The uploaded zone file is larger than the limit. */
  tooLarge: 1212,
  /** The import request is not usable multipart (no `file`, wrong content type). */
  badUpload: 1213,
  /** The `proxied` form value is neither "true" nor "false". */
  badProxied: 1214,
  /** A batch body is malformed (not arrays of objects, missing ids). */
  badBatch: 1215,
  /** A batch has more operations than the plan allows. */
  batchTooLarge: 1216,
} as const;

/** An error about line `line` (1-based) of a zone file. */
export function lineError(line: number, message: string, code: number = ZONEFILE_CODES.syntax): AppError {
  return new AppError(code, `Zone file line ${line}: ${message}`, 400);
}
