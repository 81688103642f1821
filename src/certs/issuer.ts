/** What the issuance loop asks of a certificate authority (the local CA or an ACME one). */

/** An issued certificate. */
export interface IssuedCertificate {
  /** Leaf first, then intermediates, PEM. */
  chainPem: string;
  /** The leaf's private key, PKCS#8 PEM. */
  keyPem: string;
}

/** A CA that issues certificates for a zone's names. */
export interface Issuer {
  /** How packs name the CA (`certificate_authority`): `lets_encrypt`-style, here `acme` or `stratus_local`. */
  readonly authority: string;
  /**
   * Issues a certificate for `hosts` (names in `zone`); throws an Error whose message says why it failed. When
   * `signal` aborts (shutdown) it stops soon and settles only after its own clean-up (challenge records removed).
   */
  issue(zone: { id: string; name: string }, hosts: string[], signal?: AbortSignal): Promise<IssuedCertificate>;
}
