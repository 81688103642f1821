/** The certificate flags (`--acme-*`): where the edge's certificates come from. */
import { ConfigError, intFlag } from './flag-errors.js';

/** Where certificates come from: an ACME CA (`--acme-directory`) or the local CA. */
export interface CertificatesConfig {
  /** ACME v2 directory URL; undefined: the local CA. */
  acmeDirectory: string | undefined;
  acmeEmail: string | undefined;
  /** PEM file of extra CAs trusted for the ACME server's HTTPS. */
  acmeCaFile: string | undefined;
  /** External Account Binding (`--acme-eab-kid`, `--acme-eab-hmac-key`). */
  acmeEab: { kid: string; hmacKey: string } | undefined;
  /** Renew this many days before expiry (`--acme-renew-days`). */
  renewDays: number;
  /** Loop timing (tests shorten it; not a flag): scan interval, first retry wait, longest retry wait (ms). */
  tickMs?: number;
  firstRetryMs?: number;
  maxRetryMs?: number;
  /** Longest wait for every live DNS node to serve a challenge (ms; tests shorten it; not a flag). Default 60 s. */
  nodeWaitMs?: number;
}

/** Reads the `--acme-*` flags. */
export function certificatesConfig(get: (name: string) => string | undefined): CertificatesConfig {
  const directory = get('acme-directory');
  if (directory !== undefined && !/^https?:\/\//.test(directory)) throw new ConfigError(`--acme-directory must be an http(s) URL, got "${directory}"`);
  const kid = get('acme-eab-kid');
  const hmacKey = get('acme-eab-hmac-key');
  if ((kid === undefined) !== (hmacKey === undefined)) throw new ConfigError('--acme-eab-kid and --acme-eab-hmac-key go together');
  return {
    acmeDirectory: directory, acmeEmail: get('acme-email'), acmeCaFile: get('acme-ca-file'),
    acmeEab: kid !== undefined && hmacKey !== undefined ? { kid, hmacKey } : undefined,
    renewDays: intFlag(get, 'acme-renew-days', 30, 1, 365),
  };
}
