/** Error codes of the certificate routes (docs/errors.md, error-catalogue.ts): 1230-1235, Stratus's own (1210-1219 are the zone files'). */
export const CERT_CODES = {
  /** A certificate or key that cannot be read, or a key that is not the certificate's. */
  badCertificate: 1230,
  /** A certificate that covers no name of the zone. */
  foreignCertificate: 1231,
  /** A malformed body (universal settings, order, custom certificate fields). */
  badBody: 1232,
  /** Unknown certificate pack id of the zone. */
  packNotFound: 1233,
  /** Unknown custom certificate id of the zone. */
  customNotFound: 1234,
  /** DELETE of the universal pack (turn universal SSL off instead). */
  universalPack: 1235,
} as const;
