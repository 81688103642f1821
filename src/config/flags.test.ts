/**
 * The flag table is complete: every flag config.ts reads (`get('name')`, `list('name', …)`, `int('name', …)`, `intFlag(get, 'name', …)`)
 * has a row taking `serve`, and every `serve` row is read there; so are the flags `stratus dev` reads. Parsing
 * refuses unknown flags (naming the closest) and flags without their value; help lists every flag.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLAGS, flagEnv, flagsOf } from './flags.js';
import { closest, parseArgs, unknownVariables } from './args.js';
import { commandHelp } from './help.js';
import { ConfigError, loadConfig } from './config.js';

const src = path.resolve(import.meta.dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(src, file), 'utf8');
const names = (text: string, re: RegExp) => [...new Set([...text.matchAll(re)].map((m) => m[1]!))].sort();

describe('the flag table', () => {
  it('has a serve row for every flag config.ts reads, and every serve row is read', () => {
    // config.ts and the readers it calls for groups of flags (certificates-config.ts, blobs-s3-config.ts)
    const readers = read('config/config.ts') + read('config/certificates-config.ts') + read('config/blobs-s3-config.ts');
    const read_ = names(readers, /\b(?:(?:get|list|int)\(|intFlag\(get,)\s*'([a-z0-9-]+)'/g);
    expect(read_.length).toBeGreaterThan(30);
    const serve = flagsOf('serve').map((f) => f.name);
    expect(read_.filter((n) => !serve.includes(n)), 'flags config.ts reads without a serve row in src/config/flags.ts').toEqual([]);
    expect(serve.filter((n) => !read_.includes(n)), 'serve rows config.ts never reads').toEqual([]);
  });

  it('has a dev row for every flag stratus dev reads', () => {
    const devReads = names(read('runtime/dev-command.ts'), /flags\[\s*'([a-z0-9-]+)'\s*\]|\bint\(\s*'([a-z0-9-]+)'/g)
      .concat(names(read('runtime/dev-command.ts'), /\bint\(\s*'([a-z0-9-]+)'/g));
    const dev = flagsOf('dev').map((f) => f.name);
    expect(devReads.filter((n) => n !== undefined && !dev.includes(n))).toEqual([]);
  });

  it('has unique names, a help line and a default on each row', () => {
    expect(new Set(FLAGS.map((f) => f.name)).size).toBe(FLAGS.length);
    for (const f of FLAGS) {
      expect(f.name).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expect(f.help.length, f.name).toBeGreaterThan(5);
      expect(f.default.length, f.name).toBeGreaterThan(0);
      expect(f.commands.length, f.name).toBeGreaterThan(0);
    }
  });
});

describe('parseArgs', () => {
  it('takes --name value and --name=value, and switches alone', () => {
    expect(parseArgs(['--http', '127.0.0.1:1', '--dns=127.0.0.1:2', 'x'], 'serve')).toEqual({ positional: ['x'], flags: { http: '127.0.0.1:1', dns: '127.0.0.1:2' }, help: false, version: false });
    expect(parseArgs(['--json'], 'credentials').flags).toEqual({ json: 'true' });
    expect(parseArgs(['--help'], 'serve').help).toBe(true);
  });

  it('refuses an unknown flag naming the closest known one', () => {
    expect(() => parseArgs(['--databse-url', 'postgres://x'], 'serve')).toThrow(/^unknown flag --databse-url \(did you mean --database-url\?\); see stratus serve --help$/);
    expect(() => parseArgs(['--bogus'], 'serve')).toThrow(/^unknown flag --bogus; see stratus serve --help$/);
    expect(() => parseArgs(['--email', 'a@b.c'], 'serve')).toThrow(ConfigError);
    expect(() => parseArgs(['-x'], 'serve')).toThrow(/unknown flag -x/);
  });

  it('refuses a flag that needs a value and has none', () => {
    expect(() => parseArgs(['--http'], 'serve')).toThrow(/^--http needs a value \(HOST:PORT\)$/);
    expect(() => parseArgs(['--data-dir', '--http', 'x'], 'serve')).toThrow(/^--data-dir needs a value/);
  });

  it('finds likely typos only', () => {
    expect(closest('dsn', ['dns', 'http'])).toBe('dns');
    expect(closest('completely-else', ['dns', 'http'])).toBeUndefined();
  });
});

describe('environment and help', () => {
  it('warns of an unknown STRATUS_ variable, naming the closest', () => {
    expect(unknownVariables({ STRATUS_DATABSE_URL: 'x', STRATUS_HTTP: 'y', STRATUS_TEST_POSTGRES: 'z', PATH: '/' }))
      .toEqual(['unknown environment variable STRATUS_DATABSE_URL is ignored (did you mean STRATUS_DATABASE_URL?)']);
  });

  it('lists every flag of a command with its default and variable', () => {
    for (const command of ['serve', 'dev', 'user', 'credentials', 'zone import', 'zone export'] as const) {
      const help = commandHelp(command);
      for (const f of flagsOf(command)) {
        expect(help, `${command} --${f.name}`).toContain(`--${f.name}`);
        expect(help).toContain(`default: ${f.default}`);
        const env = flagEnv(f);
        if (env !== undefined) expect(help).toContain(env);
      }
    }
    expect(commandHelp('serve')).not.toContain('--email');
  });

  it('refuses a bad log level and credentials shorter than production', () => {
    expect(() => loadConfig({ 'log-level': 'verbose' })).toThrow(/--log-level must be one of fatal, error/);
    expect(() => loadConfig({ 'auth-key': 'short' })).toThrow(/--auth-key must be at least 37/);
    expect(() => loadConfig({ 'api-token': 'short' })).toThrow(/--api-token must be at least 40/);
  });
});
