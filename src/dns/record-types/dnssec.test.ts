import { describe, expect, it } from 'vitest';
import { check } from './test-support.js';

const sha256 = 'e2d3c916f6deeac73294e8268fb5885044a833fc5459588f4a9184cfc41a5766';

describe('DS', () => {
  it('derives content, hex uppercase', () => {
    expect(check('DS', { data: { key_tag: 2371, algorithm: 13, digest_type: 2, digest: sha256 } }).value).toEqual({
      content: `2371 13 2 ${sha256.toUpperCase()}`, data: { key_tag: 2371, algorithm: 13, digest_type: 2, digest: sha256.toUpperCase() }, priority: null,
    });
    expect(check('DS', { data: { key_tag: 1, algorithm: 8, digest_type: 99, digest: 'ABCD' } }).codes).toEqual([]);
  });
  it('checks ranges and digest length by type', () => {
    expect(check('DS', { data: { key_tag: 65536, algorithm: 256, digest_type: 1, digest: sha256 } }).codes).toEqual([9512, 9512, 9512]);
    expect(check('DS', { data: { key_tag: 1, algorithm: 8, digest_type: 2, digest: 'xyz' } }).codes).toEqual([9512]);
  });
});

describe('DNSKEY', () => {
  it('derives content', () => {
    expect(check('DNSKEY', { data: { flags: 257, protocol: 3, algorithm: 13, public_key: 'mdsswUyr3DPW132mOi8V9xESWE8jTo0d xCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==' } }).value?.content)
      .toBe('257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==');
  });
  it('refuses bad fields', () => {
    expect(check('DNSKEY', { data: { flags: 70000, protocol: 3, algorithm: 13, public_key: 'bad key' } }).codes).toEqual([9512, 9512]);
  });
});

describe('CERT', () => {
  it('derives content', () => {
    expect(check('CERT', { data: { type: 9, key_tag: 0, algorithm: 8, certificate: 'MIIB' } }).value)
      .toEqual({ content: '9 0 8 MIIB', data: { type: 9, key_tag: 0, algorithm: 8, certificate: 'MIIB' }, priority: null });
  });
  it('refuses bad fields', () => {
    expect(check('CERT', { data: { type: 9, key_tag: 0, algorithm: 8 } }).codes).toEqual([9512]);
    expect(check('CERT', { data: { type: 'x', key_tag: 0, algorithm: 8, certificate: '!!' } }).codes).toEqual([9512, 9512]);
  });
});
