/**
 * Results of the bucket protocol (workerd's `r2-api.capnp` JSON, see
 * ../shared/reference/workerd-bucket-protocol.md "Answers"): objects, list pages and errors.
 */
import { StoreCodes, bindingErrorParts } from '../../store/errors.js';
import type { StoreObject, StoreObjects, StoreStringChecksums } from '../../store/types.js';
import type { ObjectRecord } from '../../store/ports.js';
import { wholeChecksums } from '../../store/checksums.js';
import { knownHttpFields } from '../../store/metadata.js';

/** The fields of an object's JSON, from either form of an object (a binding value or a stored record). */
interface ObjectFields {
  key: string;
  version: string;
  size: number;
  etag: string;
  /** Epoch ms. */
  uploaded: number;
  /** Known HTTP fields, cacheExpiry as epoch ms (`knownHttpFields`). */
  httpFields: Record<string, string | number> | undefined;
  customMetadata: Record<string, string> | undefined;
  range: { offset: number; length: number } | undefined;
  /** Whole-object digests in hex (`wholeChecksums`). */
  checksums: StoreStringChecksums;
  storageClass: string | undefined;
  ssecKeyMd5: string | undefined;
}

function fieldsJson(f: ObjectFields): Record<string, unknown> {
  const out: Record<string, unknown> = { name: f.key, version: f.version, size: f.size, etag: f.etag, uploaded: f.uploaded };
  if (f.httpFields !== undefined) out.httpFields = f.httpFields;
  if (f.customMetadata !== undefined) out.customFields = Object.entries(f.customMetadata).map(([k, v]) => ({ k, v }));
  if (f.range) out.range = { offset: f.range.offset, length: f.range.length };
  const sums = f.checksums;
  out.checksums = { 0: sums.md5, 1: sums.sha1, 2: sums.sha256, 3: sums.sha384, 4: sums.sha512 };
  if (f.storageClass) out.storageClass = f.storageClass;
  if (f.ssecKeyMd5) out.ssec = { algorithm: 'AES256', keyMd5: f.ssecKeyMd5 };
  return out;
}

/** Object JSON as workerd reads it (R2HeadResponse), of a binding value (a put's result, a list entry). */
export function objectJson(o: StoreObject): Record<string, unknown> {
  let httpFields: Record<string, string | number> | undefined;
  if (o.httpMetadata !== undefined) {
    const { cacheExpiry, ...rest } = o.httpMetadata;
    httpFields = cacheExpiry ? { ...rest, cacheExpiry: cacheExpiry.getTime() } : rest;
  }
  return fieldsJson({
    key: o.key, version: o.version, size: o.size, etag: o.etag, uploaded: o.uploaded.getTime(), httpFields, customMetadata: o.customMetadata,
    range: o.range, checksums: o.checksums.toJSON(), storageClass: o.storageClass, ssecKeyMd5: o.ssecKeyMd5,
  });
}

/** The same JSON of a stored record read by `head` or `get` (`READ_RECORD`), as `objectJson` gives of its value. */
export function recordJson(rec: ObjectRecord, range: { offset: number; length: number }): Record<string, unknown> {
  return fieldsJson({
    key: rec.key, version: rec.version, size: rec.size, etag: rec.etag, uploaded: rec.uploaded, httpFields: knownHttpFields(rec.httpMetadata),
    customMetadata: rec.customMetadata, range, checksums: wholeChecksums(rec.checksums), storageClass: rec.storageClass, ssecKeyMd5: rec.ssec?.keyMd5,
  });
}

/** A list page as workerd reads it (R2ListResponse). */
export function listJson(page: StoreObjects): Record<string, unknown> {
  return {
    objects: page.objects.map(objectJson),
    truncated: page.truncated,
    ...(page.truncated ? { cursor: page.cursor } : {}),
    delimitedPrefixes: page.delimitedPrefixes,
  };
}

/** An error as the protocol carries it: status and the `cf-r2-error` header's JSON. */
export interface ProtocolError {
  status: number;
  v4code: number;
  message: string;
}

const STATUS_BY_CODE = new Map<number, number>(Object.values(StoreCodes).map((e) => [e.code, e.status]));

/** 10007: makes head/get resolve null and delete resolve. */
export const NO_SUCH_KEY: ProtocolError = { status: 404, v4code: 10007, message: 'The specified key does not exist.' };
/** 10031: makes put resolve null and get resolve a body-less object. */
export const PRECONDITION_FAILED: ProtocolError = { status: 412, v4code: 10031, message: 'At least one of the pre-conditions you specified did not hold.' };

/**
 * Turns a binding rejection of the store (`toBindingError`'s, which carries its code and message) into the
 * protocol's code and message; workerd rebuilds the same `"<action>: <message> (<code>)"` text for the script.
 * Argument errors are 10029 InvalidArgument; anything else is 10001 InternalError.
 */
export function protocolError(err: unknown): ProtocolError {
  const parts = bindingErrorParts(err);
  if (parts) return { status: STATUS_BY_CODE.get(parts.code) ?? 400, v4code: parts.code, message: parts.message };
  if (err instanceof TypeError || err instanceof RangeError) return { status: 400, v4code: StoreCodes.InvalidArgument.code, message: err.message };
  return { status: 500, v4code: StoreCodes.InternalError.code, message: StoreCodes.InternalError.message };
}

/** The `cf-r2-error` header value. */
export function errorHeader(e: ProtocolError): string {
  return JSON.stringify({ version: 1, v4code: e.v4code, message: e.message });
}
