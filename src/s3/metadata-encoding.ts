/**
 * Non-ASCII `x-amz-meta-*` values. HTTP header bytes reach the edge as Latin-1 characters; S3 decodes values sent
 * as RFC 2047 encoded words (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`) before storing them and returns any value that is
 * not printable ASCII RFC 2047-encoded (`=?UTF-8?B?<base64 of the UTF-8 bytes>?=`), so GET and HEAD answer the
 * same bytes and every client can carry them (docs.aws.amazon.com/AmazonS3/latest/userguide/UsingMetadata.html).
 * Raw UTF-8 bytes (curl, some SDKs) are stored as the characters they encode; other bytes as Latin-1.
 */

const ENCODED_WORD = /^=\?([A-Za-z0-9_-]+)\?([BbQq])\?([^?]*)\?=$/;

function decodeEncodedWord(value: string): string | undefined {
  const m = ENCODED_WORD.exec(value.trim());
  if (!m) return undefined;
  const charset = m[1]!.toLowerCase();
  if (charset !== 'utf-8' && charset !== 'utf8' && charset !== 'iso-8859-1' && charset !== 'us-ascii') return undefined;
  const bytes = m[2]!.toUpperCase() === 'B'
    ? Buffer.from(m[3]!, 'base64')
    : Buffer.from(m[3]!.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1');
  return charset === 'iso-8859-1' ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** A metadata value as received (Latin-1 characters for the header's bytes) to the text to store. */
export function decodeMetadataValue(value: string): string {
  const word = decodeEncodedWord(value);
  if (word !== undefined) return word;
  if (!/[\x80-\xff]/.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  const utf8 = bytes.toString('utf8');
  // Valid UTF-8 round-trips; anything else was meant as Latin-1.
  return Buffer.from(utf8, 'utf8').equals(bytes) ? utf8 : value;
}

/** A stored metadata value as a header value: printable ASCII as is, anything else RFC 2047-encoded. */
export function encodeMetadataValue(value: string): string {
  if (/^[\x20-\x7e\t]*$/.test(value)) return value;
  return `=?UTF-8?B?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}
