/**
 * Which account, bucket and key a request addresses. Path-style: `/<bucket>/<key>` on any host. Virtual-hosted
 * style (https://docs.aws.amazon.com/AmazonS3/latest/userguide/VirtualHosting.html): when a domain is configured
 * (`--s3-domain`) and the request's host is `<bucket>.<domain>` (any port), the host names the bucket and the
 * whole path after its first `/` is the key. As production's endpoints do, a host may also name the account:
 * `<account_id>.<domain>` (path-style below it) and `<bucket>.<account_id>.<domain>` (a label of 32 lowercase
 * hex digits right before the domain is an account id, never a bucket). A host equal to the domain, an IP
 * address or any other name stays path-style, the account then coming from the credentials.
 */
import { S3Error } from './errors.js';

/** Bucket and key of a request (decoded), and how they were addressed. */
export interface S3Address {
  /** The account named by the host, if any. */
  account?: string;
  bucket: string | undefined;
  key: string | undefined;
  style: 'path' | 'virtual-hosted';
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new S3Error('InvalidURI', "Couldn't parse the specified URI.", 400);
  }
}

/** Bucket and key of a raw (percent-encoded) path, path-style. */
function splitPath(pathname: string): { bucket: string | undefined; key: string | undefined } {
  const path = pathname.replace(/^\/+/, '');
  if (path === '') return { bucket: undefined, key: undefined };
  const slash = path.indexOf('/');
  if (slash < 0) return { bucket: decode(path), key: undefined };
  const key = path.slice(slash + 1);
  return { bucket: decode(path.slice(0, slash)), key: key === '' ? undefined : decode(key) };
}

/** The bucket named by `hostname` under `domain` (both lowercase, no port), or undefined. */
export function bucketFromHost(hostname: string, domain: string | undefined): string | undefined {
  if (domain === undefined) return undefined;
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const suffix = `.${domain}`;
  if (!host.endsWith(suffix) || host.length === suffix.length) return undefined;
  return host.slice(0, -suffix.length);
}

const ACCOUNT_LABEL = /(?:^|\.)([0-9a-f]{32})$/;

/** The account and bucket named by `hostname` under `domain` (`[<bucket>.][<account_id>.]<domain>`). */
export function hostTarget(hostname: string, domain: string | undefined): { account?: string; bucket?: string } {
  const below = bucketFromHost(hostname, domain);
  if (below === undefined) return {};
  const m = ACCOUNT_LABEL.exec(below);
  if (!m) return { bucket: below };
  const bucket = below.slice(0, m.index);
  return bucket === '' ? { account: m[1]! } : { account: m[1]!, bucket };
}

/** The account, bucket and key a request addresses; `hostname` is the request's host without port. */
export function addressOf(hostname: string, pathname: string, domain: string | undefined): S3Address {
  const { account, bucket } = hostTarget(hostname, domain);
  const named = account === undefined ? {} : { account };
  if (bucket === undefined) return { ...named, ...splitPath(pathname), style: 'path' };
  const key = pathname.replace(/^\//, '');
  return { ...named, bucket, key: key === '' ? undefined : decode(key), style: 'virtual-hosted' };
}
