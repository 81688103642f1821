import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isBucketName, isJsIdentifier, loadScriptConfig, validateScriptConfig } from './script-config.js';

const dirs: string[] = [];
afterAll(() => { for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true }); });

function write(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-cfg-'));
  dirs.push(dir);
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('script config', () => {
  it('reads TOML with main resolved against the file', () => {
    const file = write('wrangler.toml', `main = "src/index.mjs"\ncompatibility_date = "2024-05-01"\ncompatibility_flags = ["store_list_honor_include"]\n\n[[store_buckets]]\nbinding = "BUCKET"\nbucket_name = "my-bucket"\n`);
    expect(loadScriptConfig(file)).toEqual({
      name: undefined,
      main: path.join(path.dirname(file), 'src/index.mjs'),
      compatibilityDate: '2024-05-01',
      compatibilityFlags: ['store_list_honor_include'],
      buckets: [{ binding: 'BUCKET', bucketName: 'my-bucket' }],
      warnings: [],
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
    check({ store_buckets: {} }, 'w.toml: store_buckets must be an array');
    check({ compatibility_date: '2024-02-30' }, 'w.toml: compatibility_date must be a date "YYYY-MM-DD", got "2024-02-30"');
    check({ compatibility_flags: 'x' }, 'compatibility_flags must be an array of strings');
    check({ compatibility_flags: ['ok', 'Bad Flag'] }, 'compatibility_flags[1] must be a flag name');
    check({ main: 3 }, 'w.toml: main must be a non-empty string');
    check({ r2_buckets: [{ binding: 'A', bucket_name: 'abc' }], store_buckets: [{ binding: 'A', bucket_name: 'def' }] }, 'store_buckets[0].binding "A" is bound twice');
    check({ vars: { A: 1 }, r2_buckets: [{ binding: 'A', bucket_name: 'abc' }] }, 'r2_buckets[0].binding "A" is bound twice');
    check({ vars: ['x'] }, 'w.toml: vars must be a table');
    check({ name: 'a b' }, 'w.toml: name must be a script name');
    check([], 'w.toml: (top level) must be a table/object');
    check({ limits: { cpu_ms: 0 } }, 'w.toml: limits.cpu_ms must be a whole number from 1 to 300000, got 0');
    check({ limits: { subrequests: 'x' } }, 'w.toml: limits.subrequests must be a whole number from 1 to 10000000, got "x"');
    check({ limits: { memory: 5 } }, 'w.toml: limits.memory is not a limit Stratus knows');
  });

  it('reads [limits] (cpu_ms, subrequests) as the runtime applies them', () => {
    expect(validateScriptConfig({ limits: { cpu_ms: 50, subrequests: 20 } }, 'w.toml', '/').limits).toEqual({ cpuMs: 50, subrequests: 20 });
    expect(validateScriptConfig({ limits: { cpu_ms: 50 } }, 'w.toml', '/').limits).toEqual({ cpuMs: 50 });
    expect(validateScriptConfig({}, 'w.toml', '/').limits).toBeUndefined();
  });

  it("reads a real project's wrangler.toml: r2_buckets, vars, deploy-only keys accepted, unknown keys as warnings", () => {
    const file = write('wrangler.toml', [
      'name = "hello"', 'main = "src/index.js"', 'compatibility_date = "2025-06-01"', 'compatibility_flags = ["nodejs_compat"]',
      'account_id = "0123456789abcdef0123456789abcdef"', 'workers_dev = true', 'routes = [{ pattern = "example.com/*", zone_name = "example.com" }]',
      'frobnicate = 1', '', '[vars]', 'GREETING = "hi"', 'LIMITS = { max = 3 }', '',
      '[[r2_buckets]]', 'binding = "ASSETS"', 'bucket_name = "site-assets"', 'preview_bucket_name = "site-assets-preview"', 'jurisdiction = "eu"', 'colour = "blue"', '',
      '[[store_buckets]]', 'binding = "LOGS"', 'bucket_name = "logs"', '',
    ].join('\n'));
    const cfg = loadScriptConfig(file);
    expect(cfg).toMatchObject({ name: 'hello', compatibilityDate: '2025-06-01', compatibilityFlags: ['nodejs_compat'], vars: { GREETING: 'hi', LIMITS: { max: 3 } } });
    expect(cfg.buckets).toEqual([{ binding: 'ASSETS', bucketName: 'site-assets' }, { binding: 'LOGS', bucketName: 'logs' }]);
    expect(cfg.warnings).toEqual(['wrangler.toml: frobnicate is not a key Stratus knows; ignored', 'wrangler.toml: r2_buckets[0].colour is not a key Stratus knows; ignored']);
  });

  it('reads wrangler.jsonc with comments and trailing commas', () => {
    const file = write('wrangler.jsonc', '{\n  // the script\n  "name": "hello", /* entry */ "main": "src/index.js",\n  "vars": { "URL": "http://x//y", },\n  "r2_buckets": [{ "binding": "B", "bucket_name": "bbb", },],\n}\n');
    const cfg = loadScriptConfig(file);
    expect(cfg).toMatchObject({ name: 'hello', vars: { URL: 'http://x//y' }, buckets: [{ binding: 'B', bucketName: 'bbb' }], warnings: [] });
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
