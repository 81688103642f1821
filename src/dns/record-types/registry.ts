/** The exhaustive table of record-type specs: one entry per type of `RECORD_TYPES`. */
import type { RecordType } from '../record.js';
import { A_SPEC, AAAA_SPEC } from './address.js';
import { CAA_SPEC } from './caa.js';
import { CERT_SPEC, DNSKEY_SPEC, DS_SPEC } from './dnssec.js';
import { CNAME_SPEC, MX_SPEC, NS_SPEC, PTR_SPEC } from './hosts.js';
import { LOC_SPEC } from './loc.js';
import { NAPTR_SPEC } from './naptr.js';
import { OPENPGPKEY_SPEC } from './openpgpkey.js';
import { SRV_SPEC } from './srv.js';
import { HTTPS_SPEC, SVCB_SPEC } from './svcb.js';
import { SMIMEA_SPEC, SSHFP_SPEC, TLSA_SPEC } from './tlsa.js';
import { TXT_SPEC } from './txt.js';
import { NSEC3PARAM_SPEC, NSEC3_SPEC, NSEC_SPEC, RRSIG_SPEC, SOA_SPEC } from './presigned.js';
import type { RecordTypeSpec } from './types.js';
import { URI_SPEC } from './uri.js';

/** Every type's spec (the compiler keeps this exhaustive). */
export const RECORD_TYPE_SPECS: Readonly<Record<RecordType, RecordTypeSpec>> = {
  A: A_SPEC, AAAA: AAAA_SPEC, CAA: CAA_SPEC, CERT: CERT_SPEC, CNAME: CNAME_SPEC, DNSKEY: DNSKEY_SPEC, DS: DS_SPEC,
  HTTPS: HTTPS_SPEC, LOC: LOC_SPEC, MX: MX_SPEC, NAPTR: NAPTR_SPEC, NS: NS_SPEC, OPENPGPKEY: OPENPGPKEY_SPEC,
  PTR: PTR_SPEC, SMIMEA: SMIMEA_SPEC, SRV: SRV_SPEC, SSHFP: SSHFP_SPEC, SVCB: SVCB_SPEC, TLSA: TLSA_SPEC,
  TXT: TXT_SPEC, URI: URI_SPEC, RRSIG: RRSIG_SPEC, NSEC: NSEC_SPEC, NSEC3: NSEC3_SPEC, NSEC3PARAM: NSEC3PARAM_SPEC, SOA: SOA_SPEC,
};
