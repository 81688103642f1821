/** The version of this build, from the package's package.json (`unknown` if it cannot be read). */
import fs from 'node:fs';

let cached: string | undefined;

/** `package.json`'s version (the same file two levels up from `src/ops` and from `dist/ops`). */
export function stratusVersion(): string {
  if (cached !== undefined) return cached;
  try {
    cached = String((JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown }).version ?? 'unknown');
  } catch {
    cached = 'unknown';
  }
  return cached;
}
