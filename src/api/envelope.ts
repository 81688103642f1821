/**
 * The v4 response envelope: `{result, success, errors, messages}` (+ `result_info` on lists). Every v4
 * response, success or failure, is built here.
 */
import { AppError } from '../shared/errors.js';
import { DEPRECATION_CODES } from '../deprecation/codes.js';
import { FRAMING_CONFLICT_MESSAGE } from './middleware/deprecation-framing.js';
import { controlByteError } from './middleware/header-bytes.js';
import { headerWithControlByte } from '../shared/header-bytes.js';
import type { EnvelopeMessage } from './envelope-message.js';

export type { EnvelopeMessage } from './envelope-message.js';

/** Pagination facts of a list response. */
export interface ResultInfo {
  page: number;
  per_page: number;
  count: number;
  total_count: number;
  total_pages: number;
}

/** A success envelope. */
export function successBody(result: unknown, messages: EnvelopeMessage[] = [], resultInfo?: ResultInfo): Record<string, unknown> {
  const body: Record<string, unknown> = { result, success: true, errors: [], messages };
  if (resultInfo) body.result_info = resultInfo;
  return body;
}

/** A failure envelope for the given errors. */
export function failureBody(errors: EnvelopeMessage[], messages: EnvelopeMessage[] = []): Record<string, unknown> {
  return { result: null, success: false, errors, messages };
}

/** The envelope entries of an AppError and the errors reported with it. */
export function errorEntries(err: AppError): EnvelopeMessage[] {
  return err.all().map((e) => {
    const entry: EnvelopeMessage = { code: e.code, message: e.message };
    if (e.chain.length > 0) entry.error_chain = e.chain.map((c) => ({ code: c.code, message: c.message }));
    return entry;
  });
}

/** `result_info` for a page of a list. */
export function pageInfo(page: number, perPage: number, count: number, totalCount: number): ResultInfo {
  return { page, per_page: perPage, count, total_count: totalCount, total_pages: totalCount === 0 ? 0 : Math.ceil(totalCount / perPage) };
}

/**
 * The v4 answer to a request Node's HTTP parser refused (`http/http-listener.ts`): 6003 in the envelope; for
 * a request with both Transfer-Encoding and Content-Length, with the cause (6121) in `error_chain`, as the
 * deprecation schedule declines it (`api/middleware/deprecation-framing.ts`); for a control byte in a credential
 * header, with that header named in `error_chain` (`api/middleware/header-bytes.ts`), the value never echoed.
 */
export function v4ParserError(status: number, cause?: { code?: string; reason?: string; rawHeaders?: string[] }): { contentType: string; body: string } {
  const bad = status === 400 && cause?.rawHeaders ? headerWithControlByte(cause.rawHeaders) : undefined;
  if (bad !== undefined) return { contentType: 'application/json', body: JSON.stringify(failureBody(errorEntries(controlByteError(bad)))) };
  const message = status === 408 ? 'Request timeout' : 'Invalid request headers';
  const both = /Transfer-Encoding/i.test(cause?.reason ?? '') && /Content-Length/i.test(cause?.reason ?? '');
  const entry: EnvelopeMessage = { code: status === 408 ? 10000 : DEPRECATION_CODES.invalidHeaders, message };
  if (both) entry.error_chain = [{ code: DEPRECATION_CODES.framingConflict, message: FRAMING_CONFLICT_MESSAGE }];
  return { contentType: 'application/json', body: JSON.stringify(failureBody([entry])) };
}
