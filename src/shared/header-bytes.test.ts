import { describe, expect, it } from 'vitest';
import { headerWithControlByte } from './header-bytes.js';

describe('headerWithControlByte', () => {
  it('names a credential header holding any C0 byte or DEL, and any header holding NUL', () => {
    expect(headerWithControlByte(['Host', 'x', 'X-Auth-Key', 'abc\u0001'])).toBe('x-auth-key');
    expect(headerWithControlByte(['Authorization', 'Bearer a\u007f'])).toBe('authorization');
    expect(headerWithControlByte(['X-Amz-Server-Side-Encryption-Customer-Key', 'k\u001f'])).toBe('x-amz-server-side-encryption-customer-key');
    expect(headerWithControlByte(['User-Agent', 'a\u0000b'])).toBe('user-agent');
  });

  it('lets tabs and other bytes through', () => {
    expect(headerWithControlByte(['Authorization', 'Bearer\tabc', 'User-Agent', 'a\u0001b', 'X-Custom', 'é'])).toBeUndefined();
  });
});
