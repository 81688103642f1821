/** The error of a bad flag, and the reader of whole-number flags that raises it; shared by the config's readers. */

/** Thrown for a bad flag or variable; the CLI prints the message and exits 2. */
export class ConfigError extends Error {}

/** A flag's whole number from `min` to `max` (`fallback` when not set), or a ConfigError naming it. */
export function intFlag(get: (name: string) => string | undefined, name: string, fallback: number, min: number, max: number): number {
  const raw = get(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`--${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return n;
}
