/** Error codes of the certificate routes (docs/errors.md, error-catalogue.ts). */
export const CERT_CODES = {
  /** A certificate or key that cannot be read, or a key that is not the certificate's. */
  badCertificate: 1210,
  /** A certificate that covers no name of the zone. */
  foreignCertificate: 1211,
  /** A malformed body (universal settings, order, custom certificate fields). */
  badBody: 1212,
  /** Unknown certificate pack id of the zone. */
  packNotFound: 1213,
  /** Unknown custom certificate id of the zone. */
  customNotFound: 1214,
  /** DELETE of the universal pack (turn universal SSL off instead). */
  universalPack: 1215,
} as const;
