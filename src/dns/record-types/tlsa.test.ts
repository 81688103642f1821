import { describe, expect, it } from 'vitest';
import { check } from './test-support.js';

const sha256 = 'd2abde240d7cd3ee6b4b28c54df034b97983a1d16e8a410e4561cb106618e971';

describe.each(['TLSA', 'SMIMEA'] as const)('%s', (type) => {
  it('derives content', () => {
    expect(check(type, { data: { usage: 3, selector: 1, matching_type: 1, certificate: sha256 } }).value).toEqual({
      content: `3 1 1 ${sha256.toUpperCase()}`, data: { usage: 3, selector: 1, matching_type: 1, certificate: sha256.toUpperCase() }, priority: null,
    });
    expect(check(type, { data: { usage: 0, selector: 0, matching_type: 0, certificate: '3082' } }).value?.content).toBe('0 0 0 3082');
  });
  it('checks ranges and the association length', () => {
    expect(check(type, { data: { usage: 256, selector: 0, matching_type: 1, certificate: 'abcd' } }).codes).toEqual([9512, 9512]);
    expect(check(type, { data: { usage: 3, selector: 1, matching_type: 0, certificate: 'abc' } }).codes).toEqual([9512]);
  });
});

describe('SSHFP', () => {
  it('derives content', () => {
    expect(check('SSHFP', { data: { algorithm: 4, type: 2, fingerprint: sha256 } }).value?.content).toBe(`4 2 ${sha256.toUpperCase()}`);
  });
  it('checks the fingerprint length by type', () => {
    expect(check('SSHFP', { data: { algorithm: 4, type: 1, fingerprint: sha256 } }).codes).toEqual([9512]);
    expect(check('SSHFP', { data: { algorithm: 300, type: 2, fingerprint: sha256 } }).codes).toEqual([9512]);
  });
});
