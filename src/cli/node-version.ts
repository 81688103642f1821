/**
 * The Node.js versions `stratus` runs on (package.json `engines`), checked by the `stratus` entry (src/cli.ts)
 * before anything else is loaded: on another version the native modules may crash the process (better-sqlite3
 * ends Node.js 20 with a segmentation fault), so the command stops at once with one line instead. This module
 * imports nothing.
 */

/** The Node.js major versions of package.json's `engines` (`^22 || ^24`). */
export const SUPPORTED_NODE_MAJORS: readonly number[] = [22, 24];

/** The one line refusing Node.js `version` (`process.versions.node`), or undefined when it is supported. */
export function unsupportedNode(version: string): string | undefined {
  const major = Number(version.split('.')[0]);
  if (SUPPORTED_NODE_MAJORS.includes(major)) return undefined;
  const wanted = SUPPORTED_NODE_MAJORS.join(' or ');
  return `stratus: Node.js v${version} is not supported: stratus needs Node.js ${wanted} (package.json engines); `
    + `put Node.js ${SUPPORTED_NODE_MAJORS.at(-1)} first on the PATH (e.g. nvm install ${SUPPORTED_NODE_MAJORS.at(-1)}) and run the command again`;
}
