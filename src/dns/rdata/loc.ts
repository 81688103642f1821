/**
 * LOC RDATA (RFC 1876 §2) from the v4 API's `data` object: latitude/longitude in degrees, minutes, seconds
 * and direction, altitude and sizes in metres.
 */

function num(data: Record<string, unknown>, key: string, fallback = 0): number {
  const v = data[key];
  if (v === undefined || v === null) return fallback;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n)) throw new RangeError(`LOC ${key} is not a number`);
  return n;
}

/** RFC 1876 size/precision: centimetres as mantissa * 10^exponent in one byte. */
export function locPrecision(metres: number): number {
  let cm = Math.round(metres * 100);
  let e = 0;
  while (cm >= 10 && e < 9) {
    cm = Math.floor(cm / 10);
    e++;
  }
  return (Math.min(cm, 9) << 4) | e;
}

function angle(deg: number, min: number, sec: number, positive: boolean): number {
  const thousandths = Math.round((deg * 3600 + min * 60 + sec) * 1000);
  return (2 ** 31 + (positive ? thousandths : -thousandths)) >>> 0;
}

/** The 16 bytes of a LOC record. */
export function locRdata(data: Record<string, unknown>): Uint8Array {
  const b = Buffer.alloc(16);
  b[0] = 0;
  b[1] = locPrecision(num(data, 'size', 1));
  b[2] = locPrecision(num(data, 'precision_horz', 10000));
  b[3] = locPrecision(num(data, 'precision_vert', 10));
  const latDir = String(data.lat_direction ?? 'N').toUpperCase();
  const longDir = String(data.long_direction ?? 'E').toUpperCase();
  b.writeUInt32BE(angle(num(data, 'lat_degrees'), num(data, 'lat_minutes'), num(data, 'lat_seconds'), latDir !== 'S'), 4);
  b.writeUInt32BE(angle(num(data, 'long_degrees'), num(data, 'long_minutes'), num(data, 'long_seconds'), longDir !== 'W'), 8);
  b.writeUInt32BE((Math.round(num(data, 'altitude') * 100) + 10_000_000) >>> 0, 12);
  return b;
}
