/**
 * Header names Stratus's workerd code and Node share. Nothing here is secret: what makes a request internal or
 * an answer a pass-on is the per-process secret or the per-request nonce these headers carry.
 */

/** Node's internal requests to a worker (ping, drain, flush, hand-off) carry the per-process secret in it. */
export const INTERNAL_HEADER = 'x-stratus-internal';
/** The request header carrying the supervisor's per-request nonce to the entry (taken off before the script runs). */
export const PASS_NONCE_HEADER = 'x-stratus-pass-nonce';
/** The answer headers of a pass-on: the request's nonce, and why (`no-respond-with`, `exception`, `body-used`). */
export const PASS_HEADER = 'x-stratus-pass';
/** Why a script passed its request on (`no-respond-with`, `exception`, `body-used`); beside {@link PASS_HEADER}. */
export const PASS_REASON_HEADER = 'x-stratus-pass-reason';
/**
 * The access record's supervisor-only fields (behind the nginx front, which logs it from the runtime's answer and
 * removes it): the supervisor sends it with the request, the entry takes it off before the script runs and sets
 * it on the script's answer (overwriting one the script set), sparing the supervisor a copy of the answer.
 */
export const RECORD_HEADER = 'x-stratus-record';
