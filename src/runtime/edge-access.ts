/**
 * The edge's requests in the access log and the HTTP metrics (listener `edge`). Node never sees these requests:
 * behind the nginx front nginx writes every record to its access log, which Node reads back
 * (front/nginx-access.ts: time of the whole request, bytes sent for the body); behind the workerd front the
 * supervisor worker reports each one it finished to the control service (control-service.ts), in batches
 * (time as of the response's headers, the body's bytes counted as they pass). Either way they are recorded here
 * like the v4 and S3 listeners' requests.
 */
import type { Logger } from '../shared/logger.js';
import { recordHttpAccess } from '../http/http-observer.js';
import type { EdgeAccessRecord } from './control-service.js';

/** A receiver of the supervisor's access reports that logs and counts them under `logger`'s `access` child. */
export function edgeAccessRecorder(logger: Logger): (records: EdgeAccessRecord[]) => void {
  const access = logger.child({ component: 'access', listener: 'edge' });
  return (records) => {
    for (const r of records) {
      recordHttpAccess(access, {
        listener: 'edge', route: r.route, method: r.method, status: r.status, seconds: r.ms / 1000, bytesIn: r.bytesIn, bytesOut: r.bytesOut,
      }, { requestId: r.requestId, ...(r.accountId !== undefined ? { accountId: r.accountId } : {}), ...(r.scheme !== undefined ? { scheme: r.scheme } : {}), ...(r.fast ? { fast: true } : {}) }, r.remote);
    }
  };
}
