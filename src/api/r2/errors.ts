/**
 * Errors of the v4 bucket routes (`/accounts/:account_id/r2/…`), with production's R2 codes where they are
 * known (https://developers.cloudflare.com/r2/api/error-codes/). Catalogued in error-catalogue.ts.
 */
import { AppError } from '../../shared/errors.js';

/** The v4 R2 codes. */
export const R2_CODES = {
  bucketExists: 10004,
  invalidBucketName: 10005,
  noSuchBucket: 10006,
  noSuchKey: 10007,
  bucketNotEmpty: 10008,
  invalidArgument: 10040,
  noCors: 10059,
  noSuchDomain: 10061,
  domainInUse: 10062,
} as const;

/** 404 10006: also the answer for another account's bucket. */
export function noSuchBucket(): AppError {
  return new AppError(R2_CODES.noSuchBucket, 'The specified bucket does not exist.', 404);
}

/** 404 10007. */
export function noSuchKey(): AppError {
  return new AppError(R2_CODES.noSuchKey, 'The specified key does not exist.', 404);
}

/** 400 10040 with what is wrong. */
export function invalidArgument(message: string): AppError {
  return new AppError(R2_CODES.invalidArgument, message, 400);
}
