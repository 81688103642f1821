/**
 * BIND's `$GENERATE start-stop[/step] lhs [ttl] [class] type rhs` directive
 * (https://bind9.readthedocs.io/en/latest/chapter3.html#bind-master-file-extension-the-generate-directive):
 * in `lhs` and `rhs`, `$` is the iterator, `${offset[,width[,base]]}` formats it (base d, o, x, X, n, N;
 * `n`/`N` are nibbles, reversed and dot-separated, the width counting the dots as BIND does, so `${0,7,n}` gives
 * at least four nibbles), `\$` is a literal `$` and `$$` too.
 */

/** Most records one `$GENERATE` (and one file in total) may produce. */
export const MAX_GENERATED = 65_536;

/** A parsed `start-stop[/step]` range. */
export interface GenerateRange {
  start: number;
  stop: number;
  step: number;
}

/** Reads a range; throws an Error with a message when malformed. */
export function parseRange(text: string): GenerateRange {
  const m = /^(\d+)-(\d+)(?:\/(\d+))?$/.exec(text);
  if (!m) throw new Error(`$GENERATE range ${JSON.stringify(text)} must be start-stop or start-stop/step`);
  const [start, stop, step] = [Number(m[1]), Number(m[2]), m[3] === undefined ? 1 : Number(m[3])];
  if (stop < start) throw new Error(`$GENERATE range ${text}: stop is below start`);
  if (step < 1) throw new Error(`$GENERATE range ${text}: step must be at least 1`);
  if (Math.floor((stop - start) / step) + 1 > MAX_GENERATED) throw new Error(`$GENERATE range ${text} makes more than ${MAX_GENERATED} records`);
  return { start, stop, step };
}

/** The iterator values of a range. */
export function rangeValues(r: GenerateRange): number[] {
  const out: number[] = [];
  for (let v = r.start; v <= r.stop; v += r.step) out.push(v);
  return out;
}

function formatValue(value: number, width: number, base: string): string {
  if (base === 'n' || base === 'N') {
    let hex = value.toString(16);
    if (base === 'N') hex = hex.toUpperCase();
    hex = hex.padStart(Math.max(1, Math.ceil(width / 2)), '0');
    return [...hex].reverse().join('.');
  }
  const radix = base === 'o' ? 8 : base === 'x' || base === 'X' ? 16 : 10;
  let s = Math.abs(value).toString(radix);
  if (base === 'X') s = s.toUpperCase();
  return (value < 0 ? '-' : '') + s.padStart(width, '0');
}

/** Substitutes the iterator into a template; throws an Error with a message on a bad `${...}`. */
export function substitute(template: string, value: number): string {
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const ch = template[i]!;
    if (ch === '\\' && template[i + 1] === '$') { out += '$'; i++; continue; }
    if (ch !== '$') { out += ch; continue; }
    if (template[i + 1] === '$') { out += '$'; i++; continue; }
    if (template[i + 1] !== '{') { out += String(value); continue; }
    const end = template.indexOf('}', i);
    if (end < 0) throw new Error(`unclosed "\${" in ${JSON.stringify(template)}`);
    const m = /^([+-]?\d+)(?:,(\d+)(?:,([doxXnN]))?)?$/.exec(template.slice(i + 2, end));
    if (!m) throw new Error(`bad modifier "${template.slice(i, end + 1)}": use \${offset[,width[,base]]}`);
    out += formatValue(value + Number(m[1]), m[2] === undefined ? 0 : Number(m[2]), m[3] ?? 'd');
    i = end;
  }
  return out;
}
