/** Generated secrets saved for the operator: a JSON file only its owner can read. */
import fs from 'node:fs';
import path from 'node:path';

/** Writes `value` as indented JSON to `file` with mode 0600 (also when the file already existed). */
export function writeSecretJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}
