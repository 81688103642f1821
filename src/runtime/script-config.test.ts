import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isBucketName, isJsIdentifier, loadScriptConfig, validateScriptConfig } from './script-config.js';

function write(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-cfg-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('script config', () => {
  it('reads TOML with main resolved against the file', () => {
    const file = write('wrangler.toml', `main = "src/index.mjs"\ncompatibility_date = "2024-05-01"\ncompatibility_flags = ["store_list_honor_include"]\n\n[[store_buckets]]\nbinding = "BUCKET"\nbucket_name = "my-bucket"\n`);
    expect(loadScriptConfig(file)).toEqual({
      main: path.join(path.dirname(file), 'src/index.mjs'),
      compatibilityDate: '2024-05-01',
      compatibilityFlags: ['store_list_honor_include'],
      buckets: [{ binding: 'BUCKET', bucketName: 'my-bucket' }],
    });
  });

  it('reads JSON', () => {
    const file = write('stratus.json', JSON.stringify({ store_buckets: [{ binding: 'A', bucket_name: 'aaa' }, { binding: '$b_2', bucket_name: 'b-2-b' }] }));
    const cfg = loadScriptConfig(file);
    expect(cfg.main).toBeUndefined();
    expect(cfg.buckets.map((b) => b.binding)).toEqual(['A', '$b_2']);
  });

  it('names the file and key of every problem', () => {
    const check = (raw: unknown, message: string) => expect(() => validateScriptConfig(raw, 'w.toml', '/')).toThrow(message);
    check({ store_buckets: [{ binding: '1abc', bucket_name: 'abc' }] }, 'w.toml: store_buckets[0].binding must be a valid JavaScript identifier, got "1abc"');
    check({ store_buckets: [{ binding: 'class', bucket_name: 'abc' }] }, 'store_buckets[0].binding must be a valid JavaScript identifier');
    check({ store_buckets: [{ binding: 'A', bucket_name: 'Upper' }] }, 'w.toml: store_buckets[0].bucket_name must be a bucket name');
    check({ store_buckets: [{ binding: 'A', bucket_name: 'abc' }, { binding: 'A', bucket_name: 'def' }] }, 'store_buckets[1].binding "A" is bound twice');
    check({ store_buckets: [{ binding: 'A', bucket_name: 'abc', extra: 1 }] }, 'store_buckets[0].extra is not a known key');
    check({ store_buckets: {} }, 'w.toml: store_buckets must be an array');
    check({ compatibility_date: '2024-02-30' }, 'w.toml: compatibility_date must be a date "YYYY-MM-DD", got "2024-02-30"');
    check({ compatibility_flags: 'x' }, 'compatibility_flags must be an array of strings');
    check({ compatibility_flags: ['ok', 'Bad Flag'] }, 'compatibility_flags[1] must be a flag name');
    check({ main: 3 }, 'w.toml: main must be a non-empty string');
    check({ r2_buckets: [] }, 'w.toml: r2_buckets is not a known key');
    check([], 'w.toml: (top level) must be a table/object');
  });

  it('reports unparseable files with the file name', () => {
    expect(() => loadScriptConfig(write('bad.toml', 'main = '))).toThrow(/^bad\.toml: not valid TOML/);
    expect(() => loadScriptConfig(write('bad.json', '{'))).toThrow(/^bad\.json: not valid JSON/);
    expect(() => loadScriptConfig('/nonexistent/w.toml')).toThrow(/^w\.toml: cannot read/);
  });

  it('checks identifiers and bucket names', () => {
    expect(isJsIdentifier('BUCKET')).toBe(true);
    expect(isJsIdentifier('ñame')).toBe(true);
    expect(isJsIdentifier('a-b')).toBe(false);
    expect(isJsIdentifier('')).toBe(false);
    expect(isBucketName('ab')).toBe(false);
    expect(isBucketName('a'.repeat(63))).toBe(true);
    expect(isBucketName('a'.repeat(64))).toBe(false);
    expect(isBucketName('-abc')).toBe(false);
    expect(isBucketName('abc-')).toBe(false);
    expect(isBucketName('my_bucket')).toBe(false);
  });
});
