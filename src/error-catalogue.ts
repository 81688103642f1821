/**
 * The catalogue of every error (and message) code the v4 API emits, with its HTTP status and meaning.
 * `docs/errors.md` is rendered from it ({@link renderErrorsMarkdown}); a test keeps the two in sync and
 * checks that every code thrown in the API's sources is catalogued. Codes are never reused.
 *
 * Sources: `production` codes and messages follow the production service (../shared/reference/dns-api.md
 * §9); `stratus` codes are Stratus's own, for problems the production service reports in ways nobody has
 * recorded. Record-name and record-value codes come from dns/record-types/errors.ts, lifecycle codes from
 * deprecation/codes.ts, zone-file and batch codes from zones/zonefile/errors.ts; they are gathered here so that there is one list.
 */
import { CERT_CODES } from './certs/codes.js';
import * as recordProblems from './dns/record-types/errors.js';
import { DEPRECATION_CODES } from './deprecation/codes.js';
import { ZONEFILE_CODES } from './zones/zonefile/errors.js';
import { STORAGE_FULL_CODE, UNAVAILABLE_CODE } from './shared/faults.js';
import { R2_CODES } from './api/r2/errors.js';
import { StoreCodes } from './store/errors.js';
import { WORKERS_CODES } from './scripts/errors.js';
import { RATE_LIMITED_CODE, RATE_LIMITED_MESSAGE } from './limits/rate-limited.js';

/** One catalogued code. */
export interface CatalogueEntry {
  code: number;
  /** HTTP status of a response whose first error has this code (0: only ever a chain entry or a message). */
  status: number;
  /** The message, or its template (`<name>` marks a variable part). */
  message: string;
  /** When it is returned. */
  when: string;
  source: 'production' | 'stratus';
}

const e = (code: number, status: number, message: string, when: string, source: 'production' | 'stratus' = 'production'): CatalogueEntry =>
  ({ code, status, message, when, source });

/** Codes of authentication, accounts, zones and records (owned by api/, accounts/, zones/). */
const API_CODES: CatalogueEntry[] = [
  e(RATE_LIMITED_CODE, 429, RATE_LIMITED_MESSAGE, 'a user (or account-owned token) over `--rate-limit` requests in the `--rate-limit-window` (default 1,200 per 5 minutes, production\'s API limit), until the window ends; a client address cooling down after `--auth-failure-limit` failed authentications (any credentials, even correct ones). With `Retry-After`; counted answers carry `Ratelimit` and `Ratelimit-Policy`'),
  e(1000, 401, 'Invalid API Token', 'GET /user/tokens/verify (or /accounts/:account_id/tokens/verify) without a token of that owner'),
  e(1004, 400, 'DNS Validation Error', 'record create/update validation failed; before api date 2024-10-01 it wraps the root causes in `error_chain`'),
  e(1061, 400, '<name> already exists', 'POST /zones with the name of a zone the same account already has (a name another account has gives a `pending` zone, not an error)'),
  e(1093, 400, 'This zone cannot be added at this time: <name> is reserved by this Stratus instance. Please contact its operator.', 'POST /zones for the domain of the instance\'s name servers, a listener\'s name (S3 domain) or a name below them, unless allowed by `--zone-name-allow`'),
  e(1099, 400, 'We were unable to identify <name> as a registered domain. Please ensure you are providing the root domain and not any subdomains (e.g., example.com, not subdomain.example.com)', 'POST /zones for a top-level domain or a public suffix (Public Suffix List, both sections; `arpa`, `in-addr.arpa`, `ip6.arpa` themselves), unless allowed by `--zone-name-allow`'),
  e(1100, 400, 'Invalid zone name …', 'POST /zones without a valid `name`', 'stratus'),
  e(1101, 400, 'Invalid or unknown account …', 'POST /zones without `account.id`, or with an account the caller is not a member of', 'stratus'),
  e(1102, 400, 'Invalid zone type …', 'POST /zones or PATCH /zones/:zone_id with `type` other than full, partial, secondary', 'stratus'),
  e(1104, 400, 'The request body must be a JSON object', 'a JSON body that is an array, string, number or null', 'stratus'),
  e(1106, 400, 'Invalid <parameter> …', 'a list query parameter (filters, tag_match, page, per_page, order, direction, match) malformed, unknown (`name.foo`) or out of range', 'stratus'),
  e(1107, 400, 'Invalid record type … / Missing record type', 'record body without `type` or with an unknown type', 'stratus'),
  e(1108, 400, 'SOA records are managed by Stratus …; set the SOA fields through /zones/:zone_id/dns_settings (soa)', 'record body with `type: "SOA"`', 'stratus'),
  e(1109, 400, 'A proxied CNAME must lead to an A or AAAA record: …', 'a proxied CNAME whose chain inside the zone ends at a name without A/AAAA/CNAME, or loops', 'stratus'),
  e(1110, 400, 'Invalid proxied …: expected true or false', '`proxied` that is not a boolean', 'stratus'),
  e(1111, 400, 'settings … (unknown setting, not a boolean, flatten_cname on a non-CNAME)', 'invalid `settings` object', 'stratus'),
  e(1112, 400, 'Other records exist at <name>; an NS record below the apex delegates its name …', 'creating NS below the apex where records of other types exist', 'stratus'),
  e(1115, 400, 'Invalid paused / vanity_name_servers / plan … / Zone property … cannot be changed', 'PATCH /zones/:zone_id with a bad `paused`, `vanity_name_servers` (up to 5 host names) or `plan` (only the Free plan\'s id), an unknown property, or none', 'stratus'),
  e(1114, 400, 'Invalid hold_after / include_subdomains …', 'zone hold: `hold_after` that is not an RFC 3339 date-time, `include_subdomains` that is not a boolean', 'stratus'),
  e(1113, 400, 'Invalid account name / type / settings …', 'POST /accounts without a `name` of 1 to 100 characters, with a `type` other than standard or enterprise, or with `settings` that is not an object', 'stratus'),
  e(1116, 400, 'Invalid status / dnssec_use_nsec3 / dnssec_multi_signer / dnssec_presigned …', 'PATCH …/dnssec with a status other than "active" or "disabled", a flag that is not a boolean, or an unknown field', 'stratus'),
  e(1117, 400, 'DNSKEY records can only be added with multi-signer DNSSEC on …', 'creating a DNSKEY record (or changing a record into one, or importing one) while the zone\'s `dnssec_multi_signer` and `dnssec_presigned` are off; production requires multi-signer DNSSEC for user-added DNSKEY records and documents no code', 'stratus'),
  e(1118, 400, '<type> records can only be added to a pre-signed zone …', 'creating an RRSIG, NSEC, NSEC3 or NSEC3PARAM record (or changing a record into one, or importing one) while the zone\'s `dnssec_presigned` is off, or an NSEC3 or NSEC3PARAM record while `dnssec_use_nsec3` is off; production takes such records in only by zone transfer into a pre-signed zone and documents no code', 'stratus'),
  e(1120, 0, 'Zone <name> has no A, AAAA or CNAME record; every zone needs at least one record that resolves a name to an address.', 'notice in `messages` of a record list and of GET dns_settings for a zone without an address record', 'stratus'),
  e(1290, 400, 'Invalid name / algo / secret / ip / port / ixfr_enable / tsig_id / ip_range / peers …', 'a secondary DNS body (TSIG, peer, ACL, outgoing) with a bad field: an algorithm other than hmac-md5.sig-alg.reg.int., hmac-sha1., hmac-sha224., hmac-sha256., hmac-sha384., hmac-sha512., a secret that is not base64, a tsig_id or peer id that is not the account\'s, an outgoing name that is not the zone\'s', 'stratus'),
  e(1291, 400, 'Outgoing zone transfers are not configured / already configured for this zone', '/zones/:zone_id/secondary_dns/outgoing: get, update, delete, enable, disable, status or force_notify before the settings were created, or a second create', 'stratus'),
  e(1292, 400, 'This zone is a secondary zone: its records are transferred from its primaries and cannot be changed through the API', 'a record create, update, delete, batch or zone-file import, a DNSSEC change, or a change of soa, ns_ttl, nameservers or multi_provider in its DNS settings, on a zone created with type "secondary" (its records are its primaries\' copy; a signed primary\'s signatures are served as transferred)', 'stratus'),
  e(1293, 400, 'Incoming zone transfers are not configured / already configured / only for secondary zones', '/zones/:zone_id/secondary_dns/incoming and force_axfr: on a zone that is not secondary, before the settings were created, or a second create', 'stratus'),
  e(1294, 400, 'A secondary DNS peer address is not allowed: loopback, private, link-local, shared and this host\'s own addresses need --transfer-peer-allow', 'creating or updating a peer (/accounts/:account_id/secondary_dns/peers) whose ip is in a prohibited range (the same ranges as origins and scripts\' fetch, edge/address-policy.ts, and this host\'s addresses) that the operator did not allow with --transfer-peer-allow; the message names the address and the range', 'stratus'),
  e(1199, 400, '<what> already exists …', 'a write that lost a race on a unique key without a more specific code (users, tokens, accounts): a concurrent request created the same object first (`db/unique-violation.ts`)', 'stratus'),
  e(1150, 400, 'Invalid policies / name / condition / not_before / expires_on / status …', 'a token body (POST or PUT …/tokens) with a bad field: unknown permission group, unknown resource key, a zone or account that is not the owner\'s, a bad CIDR, expires_on not after not_before', 'stratus'),
  e(1428, 400, 'The zone name provided is subject to a hold which disallows the creation of this zone. Please contact the domain owner to have this hold removed.', 'POST /zones for a name another account\'s active zone holds (`/zones/:zone_id/hold`; below it with `include_subdomains`)'),
  e(6003, 400, 'Invalid request headers', 'malformed auth headers (chain: 6102, 6103, 6111) and other header problems (chain: 6120, 6121)'),
  e(6007, 400, 'Malformed JSON in request body', 'a request body that is not JSON (an empty body counts as `{}`)'),
  e(6102, 0, 'Invalid format for X-Auth-Email header', 'in `error_chain` of 6003; also by `stratus user add` for a bad e-mail'),
  e(6103, 0, 'Invalid format for X-Auth-Key header', 'in `error_chain` of 6003; also by `stratus user add` for a bad key'),
  e(6111, 0, 'Invalid format for Authorization header', 'in `error_chain` of 6003: an Authorization header that is not `Bearer <token>`'),
  e(6130, 400, 'Request body nested too deeply: at most <max> levels of arrays and objects are accepted', 'a JSON body nesting arrays and objects deeper than 64 levels (checked before parsing)', 'stratus'),
  e(6131, 413, 'Request body too large: at most <limit> bytes are accepted', 'a v4 request body over `--api-body-limit` (default 100 MB, production\'s limit): refused from its Content-Length before it is read, or as soon as a chunked body passes it', 'stratus'),
  e(7000, 404, 'No route for that URI', 'unknown path'),
  e(7003, 404, 'Could not route to <path>, perhaps your object identifier is invalid?', 'unknown, malformed or foreign zone id (and account id): the same answer whether or not the object exists'),
  e(9004, 400, 'This record type cannot be proxied.', '`proxied: true` on a type other than A, AAAA, CNAME'),
  e(9021, 400, 'Invalid TTL. Must be between <min> and 86400 seconds, or 1 for automatic.', '`ttl` not 1 and outside min..86400 (min: plan.minTtl, default 60), or not an integer'),
  e(9103, 403, 'Unknown X-Auth-Key or X-Auth-Email', 'well-formed credentials that match no user'),
  e(9106, 400, 'Missing X-Auth-Key, X-Auth-Email or Authorization headers', 'no credentials, or only one of the e-mail/key pair'),
  e(9109, 403, 'Unauthorized to access requested resource / Cannot use the access token from location: <address>', 'an API token without the capability the route needs on its zone, account or user (or calling POST /accounts); a token used from an address its request_ip condition excludes'),
  e(9300, 400, 'DNS record has <n> tags, exceeding the quota of <max>.', 'more tags than plan.tagsPerRecord (default 20)'),
  e(9301, 400, 'Invalid tag …: use "name:value" with a name of 1 to 32 letters, digits, "_" or "-".', 'a tag that is not a `name:value` string with a valid name', 'stratus'),
  e(9302, 400, 'Tag "<name>" has a value longer than 100 characters.', 'a tag value over 100 characters', 'stratus'),
  e(9313, 400, 'DNS record comment exceeds the maximum length of <max> characters.', 'comment longer than plan.commentMaxLength (default 500), containing CR/LF, or not a string'),
  e(10000, 401, 'Authentication error', 'an unknown, disabled, expired or not-yet-valid API token (401); a token that holds nothing on the zone of the path (403); also the message code of a successful token verify'),
  e(81044, 404, 'Record does not exist.', 'unknown or malformed record id'),
  e(81045, 400, 'Record quota exceeded.', 'the zone already holds plan.recordsPerZone records'),
  e(81053, 400, 'An A, AAAA, or CNAME record with that host already exists.', 'creating a CNAME where any record exists at the name'),
  e(81054, 400, 'A CNAME record with that host already exists. For more details, refer to <…>.', 'creating a record where a CNAME exists at the name'),
  e(81056, 400, 'NS records with that host already exist.', 'creating a record other than NS or DS at a name below the apex that has NS records (DS belongs at the delegation point)'),
  e(81058, 400, 'An identical record already exists.', 'same type, name, content and priority as an existing record'),
];

/** Descriptions of the lifecycle codes (owned by deprecation/; every code of deprecation/codes.ts must be here). */
const LIFECYCLE_ENTRIES: CatalogueEntry[] = [
  e(DEPRECATION_CODES.invalidApiVersion, 0, 'Invalid api-version header …', 'in `error_chain` of 6003: `api-version` that is not a YYYY-MM-DD date', 'stratus'),
  e(DEPRECATION_CODES.framingConflict, 0, 'Transfer-Encoding and Content-Length …', 'in `error_chain` of 6003: both headers sent (at every api date)', 'stratus'),
  e(DEPRECATION_CODES.routeNotProvided, 501, 'route of the schedule not provided by Stratus', 'a deprecated route that Stratus does not serve', 'stratus'),
  e(DEPRECATION_CODES.routeRemoved, 410, 'route removed at the api date', 'a scheduled route past its removal date', 'stratus'),
  e(DEPRECATION_CODES.deprecationNotice, 0, 'deprecation notice (in `messages`)', 'a request used a deprecated form', 'stratus'),
  e(DEPRECATION_CODES.unknownZoneSetting, 400, 'Unknown zone setting', 'unknown zone setting name'),
  e(DEPRECATION_CODES.invalidZoneSetting, 400, 'Invalid value for zone setting', 'invalid value of a zone setting'),
  e(DEPRECATION_CODES.invalidDnsSetting, 400, 'Invalid DNS setting …', 'invalid value in a DNS settings body', 'stratus'),
];

/** Zone-file import/export and batch codes (owned by zones/zonefile and zones/records-batch). */
const ZONEFILE_ENTRIES: CatalogueEntry[] = [
  e(ZONEFILE_CODES.syntax, 400, 'Zone file line <n>: …', 'import: a line cannot be read (syntax, unknown type, bad RDATA, bad directive)', 'stratus'),
  e(ZONEFILE_CODES.include, 400, 'Zone file line <n>: $INCLUDE …', 'import: `$INCLUDE` in an uploaded zone file', 'stratus'),
  e(ZONEFILE_CODES.tooLarge, 400, '… larger than the limit', 'import: the zone file is larger than the limit (256 KiB)', 'stratus'),
  e(ZONEFILE_CODES.badUpload, 415, 'Send the zone file as multipart/form-data with a "file" field …', 'import: not usable multipart (no `file`, wrong content type)', 'stratus'),
  e(ZONEFILE_CODES.badProxied, 400, '… proxied …', 'import: the `proxied` form value is neither "true" nor "false"', 'stratus'),
  e(ZONEFILE_CODES.badBatch, 400, '<list>[<i>] must be an object / needs the "id" …', 'batch: malformed body (not arrays of objects, missing ids)', 'stratus'),
  e(ZONEFILE_CODES.batchTooLarge, 400, 'The batch has <n> operations; at most <max> are allowed per request.', 'batch: more operations than plan.recordsPerBatch', 'stratus'),
];

/** Faults of the backing stores (shared/faults.ts; docs/operations.md). */
const FAULT_ENTRIES: CatalogueEntry[] = [
  e(UNAVAILABLE_CODE, 503, 'Service temporarily unavailable: the database cannot be reached. Retry in a few seconds.', 'the database (or the S3 blob store) cannot be reached: refused, cut, not answering within --database-timeout, restarting, not accepting connections (SQLSTATE classes 08 and 53, 57P01-57P03, 55000 "not currently accepting connections"), closed while the server stops; with `Retry-After: 5`. Nothing was changed, except that a write whose commit was cut may have been applied (its outcome is unknown)', 'stratus'),
  e(STORAGE_FULL_CODE, 507, 'Insufficient storage: the server\'s disk is full, nothing was changed. Retry once space is freed.', 'a write while the disk of the embedded store (SQLite, blob files) or of PostgreSQL is full; reads keep working', 'stratus'),
];

/** Codes of the v4 bucket routes (owned by api/r2/). */
const R2_ENTRIES: CatalogueEntry[] = [
  e(R2_CODES.bucketExists, 409, 'The bucket you tried to create already exists, and you own it.', 'POST /accounts/:account_id/r2/buckets with the name of a bucket of that account (names are per account)'),
  e(R2_CODES.invalidBucketName, 400, 'The specified bucket name is not valid.', 'a bucket name that is not 3 to 63 lowercase letters, digits and hyphens, starting and ending with a letter or digit'),
  e(R2_CODES.noSuchBucket, 404, 'The specified bucket does not exist.', 'a bucket the account does not have (another account\'s bucket looks the same)'),
  e(R2_CODES.noSuchKey, 404, 'The specified key does not exist.', 'GET or DELETE of a missing object through …/r2/buckets/:bucket_name/objects/:key'),
  e(R2_CODES.bucketNotEmpty, 409, 'The bucket you tried to delete is not empty.', 'DELETE of a bucket holding objects or a multipart upload in progress; with uploads in progress the message goes on to say how many and how to abort them'),
  e(R2_CODES.invalidArgument, 400, '<what is wrong>', 'a bucket route body or header that does not validate: storage class, location hint, jurisdiction other than default, CORS or lifecycle rules, list parameters, temporary credentials', 'stratus'),
  e(R2_CODES.noSuchDomain, 404, 'The specified custom domain does not exist for this bucket.', 'GET, PUT or DELETE …/r2/buckets/:bucket_name/domains/custom/:domain of a hostname the bucket does not have', 'stratus'),
  e(R2_CODES.domainInUse, 409, 'The hostname <name> is already a public hostname of a bucket.', 'POST …/r2/buckets/:bucket_name/domains/custom with a hostname some bucket (of any account) already has', 'stratus'),
  e(R2_CODES.noCors, 404, 'The CORS configuration does not exist.', 'GET …/r2/buckets/:bucket_name/cors of a bucket without rules', 'stratus'),
  // The binding's own codes, answered as they are by the v4 object routes (…/r2/buckets/:bucket_name/objects).
  ...Object.values(StoreCodes).map((c) => e(c.code, c.status, c.message, 'an object route whose bucket operation failed with this binding error')),
];

/** Workers codes (owned by scripts/: scripts, versions, deployments, secrets, routes, subdomains). */
/** Codes of the SSL and custom certificate routes (owned by certs/, api/routes/ssl.ts). */
const CERT_ENTRIES: CatalogueEntry[] = [
  e(CERT_CODES.badCertificate, 400, 'The certificate or private key could not be read, or the key is not the certificate\'s …', 'POST/PATCH /zones/:zone_id/custom_certificates: `certificate` without a PEM certificate, `private_key` without a PEM key, or a key that does not match the leaf', 'stratus'),
  e(CERT_CODES.foreignCertificate, 400, 'The certificate covers no name of this zone.', 'POST/PATCH /zones/:zone_id/custom_certificates: no name of the certificate is the zone or below it', 'stratus'),
  e(CERT_CODES.badBody, 400, 'Invalid <field> …', 'SSL routes: `enabled` not a boolean (universal settings); order with `type` other than `advanced`, hosts empty, over 50, without the apex or outside the zone, unknown `validation_method`, `validity_days` or `certificate_authority`; custom certificate with an unknown `bundle_method` or a `priority` that is not a whole number', 'stratus'),
  e(CERT_CODES.packNotFound, 404, 'Certificate pack not found.', 'GET/PATCH/DELETE /zones/:zone_id/ssl/certificate_packs/:id for an id the zone has no pack of', 'stratus'),
  e(CERT_CODES.customNotFound, 404, 'Custom certificate not found.', 'GET/PATCH/DELETE /zones/:zone_id/custom_certificates/:id for an id the zone has no certificate of', 'stratus'),
  e(CERT_CODES.universalPack, 400, 'The universal certificate pack cannot be deleted; turn universal SSL off instead.', 'DELETE /zones/:zone_id/ssl/certificate_packs/:id of the universal pack', 'stratus'),
];

const WORKERS_ENTRIES: CatalogueEntry[] = [
  e(WORKERS_CODES.scriptNotFound, 404, 'This Worker does not exist on your account.', 'a script (or its version, deployment) that is not in the path\'s account; also GET …/workers/subdomain when the account has none (wrangler then offers to register one)'),
  e(WORKERS_CODES.invalidName, 400, 'Invalid Worker name …', 'a script name that is not 1 to 63 lowercase letters, digits, "-" or "_"', 'stratus'),
  e(WORKERS_CODES.duplicateRoute, 400, 'A route with the pattern … already exists in this zone. / The route … is already assigned to …', 'creating a route whose pattern the zone already has; PUT …/scripts/:name/routes with a pattern of another script', 'stratus'),
  e(WORKERS_CODES.validation, 400, 'binding <name> of type <type> … / metadata.… / Module "<name>" …', 'a script upload that fails validation: an unsupported binding type (named), a bucket that does not exist, a missing main module, a module content type Stratus does not load, a compatibility date in the future, Service Worker syntax'),
  e(WORKERS_CODES.invalidRoute, 400, 'Invalid route pattern …', 'a route pattern that is not valid (infix wildcard, query, port) or not inside its zone; a custom domain route', 'stratus'),
  e(WORKERS_CODES.tooLarge, 400, 'Your Worker exceeded the size limit of 32 MiB', 'modules (source maps included) over 32 MiB; 413 when the whole body is larger', 'stratus'),
  e(WORKERS_CODES.routeNotFound, 404, 'Route not found', 'an unknown route id of the zone', 'stratus'),
  e(WORKERS_CODES.subdomainUnavailable, 400, 'Subdomain <name> is unavailable.', 'PUT …/workers/subdomain (or GET …/workers/subdomains/:name) with a subdomain another account holds'),
  e(WORKERS_CODES.invalidSubdomain, 400, 'Invalid subdomain …', 'a workers subdomain that is not a DNS label', 'stratus'),
  e(WORKERS_CODES.secretNotFound, 404, 'Secret <name> does not exist on this Worker.', 'GET or DELETE of a secret the Worker does not have', 'stratus'),
  e(WORKERS_CODES.invalidDeployment, 400, 'versions must list …', 'a deployment body with bad versions or percentages that do not add up to 100', 'stratus'),
  e(WORKERS_CODES.versionNotDeployed, 400, 'Secret edit failed: the latest version of this Worker is not the deployed one. …', 'a secret change while the latest version is not the one deployed at 100%'),
];

/** Record name and value problems (dns/record-types/errors.ts); status 400, or a `messages` warning. */
function recordProblemEntries(): CatalogueEntry[] {
  const out: CatalogueEntry[] = [];
  for (const [key, value] of Object.entries(recordProblems)) {
    if (typeof value !== 'object' || value === null || !('code' in value) || !('template' in value)) continue;
    const def = value as recordProblems.ProblemDef;
    const warning = key.endsWith('_WARNING');
    const production = [9000, 9005, 9006, 9009].includes(def.code);
    out.push(e(def.code, warning ? 0 : 400, def.template.replace(/\{(\w+)\}/g, '<$1>'), warning ? 'warning in `messages` (the record is saved)' : `record body: ${key.toLowerCase().replace(/_/g, ' ')}`, production ? 'production' : 'stratus'));
  }
  return out;
}

/** The whole catalogue, sorted by code (one entry per code). */
export function errorCatalogue(): CatalogueEntry[] {
  const byCode = new Map<number, CatalogueEntry>();
  for (const entry of [...API_CODES, ...LIFECYCLE_ENTRIES, ...ZONEFILE_ENTRIES, ...FAULT_ENTRIES, ...R2_ENTRIES, ...CERT_ENTRIES, ...WORKERS_ENTRIES, ...recordProblemEntries()]) {
    if (!byCode.has(entry.code)) byCode.set(entry.code, entry);
  }
  return [...byCode.values()].sort((a, b) => a.code - b.code);
}

/** `docs/errors.md`, rendered from the catalogue. */
export function renderErrorsMarkdown(): string {
  const lines = [
    '# Error codes of the v4 API',
    '',
    'Generated from `src/error-catalogue.ts` (run `UPDATE_DOCS=1 npx vitest run src/error-catalogue.test.ts` after',
    'changing it). Every failure is the envelope `{"result":null,"success":false,"errors":[{"code","message"}],"messages":[]}`;',
    'validation reports every problem of a body, one `errors` entry each. Status 0 means the code only appears inside',
    '`error_chain` or in `messages`. Source `production`: code and message as the production service sends them;',
    '`stratus`: Stratus\'s own code for a problem whose production code is not known.',
    '',
    'Choices: an unknown, malformed or foreign zone id is 404 + 7003 (the official SDK raises `NotFoundError`), never',
    'revealing whether the zone exists; conflicts and duplicates are 400 (never 409, which the SDK retries); before api',
    'date 2024-10-01 record validation errors arrive as 1004 `DNS Validation Error` with the causes in `error_chain`.',
    '',
    '| code | HTTP | message | when | source |',
    '|---|---|---|---|---|',
  ];
  for (const c of errorCatalogue()) {
    const cell = (s: string) => s.replace(/\|/g, '\\|');
    lines.push(`| ${c.code} | ${c.status === 0 ? '-' : c.status} | ${cell(c.message)} | ${cell(c.when)} | ${c.source} |`);
  }
  return `${lines.join('\n')}\n`;
}
