/**
 * LOC (RFC 1876): `data{lat_degrees 0..90, lat_minutes 0..59, lat_seconds 0..59.999, lat_direction N|S,
 * long_degrees 0..180, long_minutes, long_seconds, long_direction E|W, altitude -100000..42849672.95,
 * size, precision_horz, precision_vert 0..90000000}` (meters). Degrees and directions are required; the
 * rest default as in RFC 1876 (0, 0, altitude 0, size 1 m, 10000 m, 10 m). Content
 * `37 46 46.000 N 122 23 35.000 W 0.00m 100.00m 0.00m 0.00m`.
 */
import { dataSpec, storedData } from './data-spec.js';
import type { DataReader } from './fields.js';
import type { StoredValue } from './types.js';

/** The LOC content of normalized data. */
export function locContent(d: Record<string, any>): string {
  const m = (n: number) => `${Number(n).toFixed(2)}m`;
  return `${d.lat_degrees} ${d.lat_minutes} ${Number(d.lat_seconds).toFixed(3)} ${d.lat_direction} `
    + `${d.long_degrees} ${d.long_minutes} ${Number(d.long_seconds).toFixed(3)} ${d.long_direction} `
    + `${m(d.altitude)} ${m(d.size)} ${m(d.precision_horz)} ${m(d.precision_vert)}`;
}

/** Reads one coordinate; undefined on problems. */
function coordinate(r: DataReader, p: 'lat' | 'long', maxDeg: number, dirs: readonly string[]) {
  const deg = r.int(`${p}_degrees`, 0, maxDeg);
  const min = r.int(`${p}_minutes`, 0, 59, 0);
  const sec = r.decimal(`${p}_seconds`, 0, 59.999, 3, 0);
  const dir = r.oneOf(`${p}_direction`, dirs);
  if (deg === undefined || min === undefined || sec === undefined || dir === undefined) return undefined;
  if (deg === maxDeg && (min > 0 || sec > 0)) return void r.fail(`${p}_degrees`, `of ${maxDeg} allows no minutes or seconds`);
  return { deg, min, sec, dir };
}

/** Parses the RFC 1876 presentation form into `data`; throws when malformed. */
export function parseLocText(tokens: string[]): Record<string, number | string> {
  const t = [...tokens];
  const take = () => t.shift();
  const coord = (dirs: string): [number, number, number, string] => {
    const deg = Number(take());
    const parts: number[] = [];
    let next = take();
    while (next !== undefined && !dirs.includes(next.toUpperCase()) && parts.length < 2) { parts.push(Number(next)); next = take(); }
    if (next === undefined || !dirs.includes(next.toUpperCase())) throw new Error(`LOC coordinate needs ${dirs.split('').join(' or ')}`);
    return [deg, parts[0] ?? 0, parts[1] ?? 0, next.toUpperCase()];
  };
  const [ld, lm, ls, lh] = coord('NS');
  const [gd, gm, gs, gh] = coord('EW');
  const meters = (v: string | undefined, dflt: number) => (v === undefined ? dflt : Number(v.replace(/m$/i, '')));
  const data = {
    lat_degrees: ld, lat_minutes: lm, lat_seconds: ls, lat_direction: lh,
    long_degrees: gd, long_minutes: gm, long_seconds: gs, long_direction: gh,
    altitude: meters(take(), 0), size: meters(take(), 1), precision_horz: meters(take(), 10000), precision_vert: meters(take(), 10),
  };
  if (Object.values(data).some((v) => typeof v === 'number' && Number.isNaN(v))) throw new Error('LOC RDATA has a field that is not a number');
  return data;
}

/** LOC: geographical location. */
export const LOC_SPEC = dataSpec('LOC', {
  build(r) {
    const lat = coordinate(r, 'lat', 90, ['N', 'S']);
    const long = coordinate(r, 'long', 180, ['E', 'W']);
    const altitude = r.decimal('altitude', -100000, 42849672.95, 2, 0);
    const size = r.decimal('size', 0, 90000000, 2, 1);
    const precision_horz = r.decimal('precision_horz', 0, 90000000, 2, 10000);
    const precision_vert = r.decimal('precision_vert', 0, 90000000, 2, 10);
    if (!lat || !long || altitude === undefined || size === undefined || precision_horz === undefined || precision_vert === undefined) return undefined;
    const data = {
      lat_degrees: lat.deg, lat_minutes: lat.min, lat_seconds: lat.sec, lat_direction: lat.dir,
      long_degrees: long.deg, long_minutes: long.min, long_seconds: long.sec, long_direction: long.dir,
      altitude, size, precision_horz, precision_vert,
    };
    return { content: locContent(data), data, priority: null };
  },
  toPresentation: (v: StoredValue) => locContent(storedData(v)),
  parsePresentation: (tokens) => ({ data: parseLocText(tokens) }),
});
