/**
 * Zone files (reference dns-api.md §6.2, §6.3):
 * - `GET /zones/:zone_id/dns_records/export`: `200 text/plain`, the BIND text itself (no envelope); errors
 *   are envelopes as everywhere.
 * - `POST /zones/:zone_id/dns_records/import`: `multipart/form-data` with `file` (a file part, as curl
 *   `--form file=@zone.txt` sends, or a text field, as the official TypeScript SDK sends a string) and
 *   `proxied` (`"true"`/`"false"`, default false). At most 262,144 bytes of zone file (1212). Result
 *   `{recs_added, total_records_parsed}`.
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ApiEnv } from '../context.js';
import { oldBehaviourApplies } from '../../deprecation/schedule.js';
import { AppError } from '../../shared/errors.js';
import { RecordValidationError } from '../../zones/record-body.js';
import type { RecordRequestContext } from '../../zones/records-service.js';
import { ZONEFILE_CODES } from '../../zones/zonefile/errors.js';
import { exportZoneFile } from '../../zones/zonefile/export.js';
import { importZoneFile, MAX_ZONE_FILE_BYTES } from '../../zones/zonefile/import.js';
import { readFormData } from '../body.js';
import { errorEntries, failureBody } from '../envelope.js';
import { ok } from '../respond.js';
import { requireZone } from '../zone-access.js';

/** Room for multipart framing and the `proxied` field on top of the zone file itself. */
const FRAMING_BYTES = 16_384;

/** The 1212 error; `what` describes the size found (`The zone file is 262145 bytes`). */
const tooLarge = (what: string): AppError => new AppError(ZONEFILE_CODES.tooLarge,
  `${what}; at most ${MAX_ZONE_FILE_BYTES} bytes (256 KiB) of zone file can be imported at once. Split it into several imports.`, 413);

/** The `file` and `proxied` fields of an import request. */
async function readImportForm(c: Context<ApiEnv>): Promise<{ text: string; proxied: boolean }> {
  const type = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(type)) {
    throw new AppError(ZONEFILE_CODES.badUpload, 'Send the zone file as multipart/form-data with a "file" field (and optionally "proxied").', 415);
  }
  let form: FormData;
  try {
    form = await readFormData(c);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(ZONEFILE_CODES.badUpload, 'The multipart/form-data body cannot be read.');
  }
  const file = form.get('file');
  if (file === null) throw new AppError(ZONEFILE_CODES.badUpload, 'Missing "file": send the zone file in a multipart field named "file".');
  const size = typeof file === 'string' ? Buffer.byteLength(file) : file.size;
  if (size > MAX_ZONE_FILE_BYTES) throw tooLarge(`The zone file is ${size} bytes`);
  const text = typeof file === 'string' ? file : await file.text();
  const raw = form.get('proxied');
  const value = typeof raw === 'string' ? raw.trim().toLowerCase() : raw === null ? '' : null;
  if (value !== '' && value !== 'true' && value !== 'false') {
    throw new AppError(ZONEFILE_CODES.badProxied, `Invalid proxied ${JSON.stringify(typeof raw === 'string' ? raw : '(a file)')}: use "true" or "false".`);
  }
  return { text, proxied: value === 'true' };
}

/** The export and import routes (mount before `/dns_records/:dns_record_id`). */
export function recordsImportExportRoutes(now: () => Date): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/zones/:zone_id/dns_records/export', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    const text = await exportZoneFile(c.get('services').records, zone, now());
    return c.text(text, 200, { 'content-type': 'text/plain; charset=utf-8' });
  });
  // Bodies without Content-Length (chunked) are cut off while streaming, never buffered whole.
  const limit = bodyLimit({
    maxSize: MAX_ZONE_FILE_BYTES + FRAMING_BYTES,
    // The rest of the body is never read: the connection is closed after the answer so it is not reused.
    onError: (c) => c.json(failureBody(errorEntries(tooLarge(`The request body is larger than ${MAX_ZONE_FILE_BYTES + FRAMING_BYTES} bytes`))), 413, { connection: 'close' }),
  });
  app.post('/zones/:zone_id/dns_records/import', limit, async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    const { text, proxied } = await readImportForm(c);
    const ctx: RecordRequestContext = { apiDate: c.get('apiDate'), warnings: [] };
    let result;
    try {
      result = await importZoneFile(c.get('services').records, zone, text, { proxied, ctx });
    } catch (err) {
      // Before 2024-10-01 record validation errors are wrapped as 1004 + error_chain, as for single writes.
      if (err instanceof RecordValidationError && oldBehaviourApplies('dns-records-error-chain', ctx.apiDate)) {
        throw new AppError(1004, 'DNS Validation Error', 400, { chain: err.all().map((e) => ({ code: e.code, message: e.message })) });
      }
      throw err;
    }
    // One message per distinct warning (a large file may repeat one on every line).
    const seen = new Set<string>();
    for (const w of ctx.warnings) if (!seen.has(`${w.code} ${w.message}`)) { seen.add(`${w.code} ${w.message}`); c.get('messages').push(w); }
    return ok(c, result);
  });
  return app;
}
