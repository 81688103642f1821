import { describe, expect, it } from 'vitest';
import { StoreServiceError, bindingErrorParts, toBindingError } from './errors.js';

describe('toBindingError', () => {
  it('formats service errors as "<action>: <message> (<code>)" plain Errors', () => {
    const out = toBindingError('get', new StoreServiceError('InvalidObjectName'));
    expect(out.constructor).toBe(Error);
    expect(out.message).toBe('get: The specified object name is not valid. (10020)');
    expect(toBindingError('put', new StoreServiceError('EntityTooLarge')).message).toBe(
      'put: Your proposed upload exceeds the maximum allowed object size. (100100)',
    );
  });
  it('passes argument errors through unchanged', () => {
    const te = new TypeError('x');
    const re = new RangeError('y');
    const plain = new Error('SSE-C Key has invalid format');
    expect(toBindingError('put', te)).toBe(te);
    expect(toBindingError('get', re)).toBe(re);
    expect(toBindingError('get', plain)).toBe(plain);
  });
  it('turns system and unknown errors into 10001 with the cause kept', () => {
    const sys = Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
    const out = toBindingError('get', sys);
    expect(out.message).toBe('get: We encountered an internal error. Please try again. (10001)');
    expect(out.cause).toBe(sys);
    expect(toBindingError('list', 'weird').message).toMatch(/\(10001\)$/);
  });
});

describe('bindingErrorParts', () => {
  it('carries the code and bare message of every rejection, even when the message holds parentheses', () => {
    const tricky = toBindingError('put', new StoreServiceError('InvalidArgument', 'bad value (42) here'));
    expect(tricky.message).toBe('put: bad value (42) here (10029)');
    expect(bindingErrorParts(tricky)).toEqual({ code: 10029, message: 'bad value (42) here' });
    expect(Object.keys(tricky)).toEqual([]);
    const internal = toBindingError('get', Object.assign(new Error('disk on fire'), { code: 'EIO' }));
    expect(bindingErrorParts(internal)?.code).toBe(10001);
  });

  it('is undefined for errors the store did not make, even with the same text', () => {
    expect(bindingErrorParts(new Error('put: forged (10031)'))).toBeUndefined();
    expect(bindingErrorParts(new TypeError('x'))).toBeUndefined();
  });
});
