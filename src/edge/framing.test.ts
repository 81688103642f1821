import { describe, expect, it } from 'vitest';
import { framingFault } from './framing.js';

describe('framingFault', () => {
  it('refuses Transfer-Encoding with Content-Length, and any Transfer-Encoding but chunked alone', () => {
    expect(framingFault(new Headers({ 'transfer-encoding': 'chunked', 'content-length': '5' }))).toContain('both');
    expect(framingFault(new Headers({ 'transfer-encoding': 'chunked, chunked' }))).toContain('not chunked alone');
    expect(framingFault(new Headers({ 'transfer-encoding': 'gzip' }))).toContain('not chunked alone');
  });
  it('leaves one framing header alone', () => {
    expect(framingFault(new Headers({ 'transfer-encoding': 'Chunked' }))).toBeUndefined();
    expect(framingFault(new Headers({ 'content-length': '5' }))).toBeUndefined();
    expect(framingFault(new Headers())).toBeUndefined();
  });
});
