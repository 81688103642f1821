/** The package version (`stratus --version`), read from the package.json beside src/ or dist/. */
import fs from 'node:fs';

/** The version in package.json. */
export function packageVersion(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}
