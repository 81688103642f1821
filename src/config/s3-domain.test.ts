import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('--s3-domain', () => {
  it('is off by default, read from the flag or STRATUS_S3_DOMAIN, lowercased without surrounding dots', () => {
    expect(loadConfig({}, {}).s3Domain).toBeUndefined();
    expect(loadConfig({ 's3-domain': 'S3.Example.com.' }, {}).s3Domain).toBe('s3.example.com');
    expect(loadConfig({}, { STRATUS_S3_DOMAIN: 's3.localhost' }).s3Domain).toBe('s3.localhost');
  });

  it('refuses anything but a DNS name', () => {
    for (const bad of ['', 'http://s3.example.com', 's3.example.com:8788', 'a_b.example', 's3..example', '-x.example']) {
      expect(() => loadConfig({ 's3-domain': bad }, {}), bad).toThrow(ConfigError);
    }
  });
});
