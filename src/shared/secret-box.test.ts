import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox, parseSecretsKey, resolveSecretsKey } from './secret-box.js';
import { SECRETS_KEY_FILE } from './data-dir.js';

describe('secret box', () => {
  const box = new SecretBox(randomBytes(32));

  it('round-trips values and never stores them in the clear', () => {
    const sealed = box.seal('hunter2 ✓', 'script/NAME');
    expect(sealed).not.toContain('hunter2');
    expect(box.open(sealed, 'script/NAME')).toBe('hunter2 ✓');
    expect(box.seal('x', 'c')).not.toBe(box.seal('x', 'c'));
  });

  it('refuses another context, another key or a tampered value', () => {
    const sealed = box.seal('value', 'a/B');
    expect(() => box.open(sealed, 'a/C')).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'a/B')).toThrow();
    // The second-to-last character changed (it was compared with the last one, so 1 time in 64 nothing changed).
    const tampered = `${sealed.slice(0, -2)}${sealed.at(-2) === 'A' ? 'B' : 'A'}${sealed.slice(-1)}`;
    expect(() => box.open(tampered, 'a/B')).toThrow();
    expect(() => box.open('garbage', 'a/B')).toThrow('not a sealed secret');
  });

  it('generates the key once into the data folder (0600) and reads it back; a configured key wins', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-secrets-'));
    try {
      const first = resolveSecretsKey({ dataDir: dir, configured: undefined });
      expect(first.generatedFile).toBe(path.join(dir, SECRETS_KEY_FILE));
      expect(fs.statSync(first.generatedFile!).mode & 0o777).toBe(0o600);
      const again = resolveSecretsKey({ dataDir: dir, configured: undefined });
      expect(again.generatedFile).toBeUndefined();
      expect(again.key.equals(first.key)).toBe(true);
      const hex = 'ab'.repeat(32);
      expect(resolveSecretsKey({ dataDir: dir, configured: hex }).key.equals(Buffer.from(hex, 'hex'))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => parseSecretsKey('abcd')).toThrow('32 bytes');
    expect(parseSecretsKey(randomBytes(32).toString('base64')).length).toBe(32);
  });
});
