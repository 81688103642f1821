/**
 * The seam between the certificates Stratus keeps (universal certificates it orders, custom certificates a
 * user uploads: `src/certs/`) and the edge's TLS front, which presents them by server name (SNI). The
 * certificate service implements {@link CertificateSource}; fronts only read it.
 */

/** One certificate the edge may present: the names it covers, its PEM chain and private key. */
export interface ServedCertificate {
  /** Stable id (the certificate's, or the pack's). */
  id: string;
  /** Names covered, lower case, as in the certificate: `example.com`, `*.example.com`. */
  hosts: string[];
  /** Leaf first, then intermediates, PEM. */
  certificatePem: string;
  /** PKCS#8 or traditional PEM; decrypted in memory only. */
  privateKeyPem: string;
  expiresOn: Date;
  /** `custom` wins over `universal`/`advanced` for the names it covers; lower `priority` first among customs. */
  kind: 'custom' | 'universal' | 'advanced' | 'fallback';
  priority: number;
}

/** Where the edge's TLS front finds certificates; kept current by the certificate service on every node. */
export interface CertificateSource {
  /**
   * The certificate for a server name, synchronous (from memory, for an SNI callback): an exact name first,
   * then a wildcard one label up; a custom certificate before a universal one; null when none covers it.
   */
  lookup(serverName: string): ServedCertificate | null;
  /** Every certificate to serve now (for a front that loads them all, such as a generated nginx config). */
  all(): ServedCertificate[];
  /** Calls `listener` after the set changed (issuance, renewal, upload, deletion), on this node or another. */
  onChange(listener: () => void): () => void;
}
