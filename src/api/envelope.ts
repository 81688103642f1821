/**
 * The v4 response envelope: `{result, success, errors, messages}` (+ `result_info` on lists). Every v4
 * response, success or failure, is built here.
 */
import { AppError } from '../shared/errors.js';

/** An entry of `errors` or `messages`. */
export interface EnvelopeMessage {
  code: number;
  message: string;
  error_chain?: { code: number; message: string }[];
  documentation_url?: string;
}

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

/** The v4 answer to a request Node's HTTP parser refused (`shared/http-listener.ts`): 6003 in the envelope. */
export function v4ParserError(status: number): { contentType: string; body: string } {
  const message = status === 408 ? 'Request timeout' : 'Invalid request headers';
  return { contentType: 'application/json', body: JSON.stringify(failureBody([{ code: status === 408 ? 10000 : 6003, message }])) };
}
