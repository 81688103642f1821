import { describe, expect, it } from 'vitest';
import { addressOf, bucketFromHost } from './addressing.js';

describe('addressOf', () => {
  it('splits path-style paths when no domain is configured or the host is not under it', () => {
    expect(addressOf('127.0.0.1', '/photos/a/b.txt', undefined)).toEqual({ bucket: 'photos', key: 'a/b.txt', style: 'path' });
    expect(addressOf('photos.s3.example.com', '/x/y', undefined)).toEqual({ bucket: 'x', key: 'y', style: 'path' });
    expect(addressOf('s3.example.com', '/photos/', 's3.example.com')).toEqual({ bucket: 'photos', key: undefined, style: 'path' });
    expect(addressOf('other.test', '/', 's3.example.com')).toEqual({ bucket: undefined, key: undefined, style: 'path' });
    expect(addressOf('[::1]', '/b/k', 's3.example.com')).toEqual({ bucket: 'b', key: 'k', style: 'path' });
  });

  it('takes the bucket from <bucket>.<domain> and the whole path as the key', () => {
    expect(addressOf('photos.s3.example.com', '/a/b.txt', 's3.example.com')).toEqual({ bucket: 'photos', key: 'a/b.txt', style: 'virtual-hosted' });
    expect(addressOf('photos.s3.example.com', '/', 's3.example.com')).toEqual({ bucket: 'photos', key: undefined, style: 'virtual-hosted' });
    expect(addressOf('photos.s3.example.com', '//lead/%20x%2Fy', 's3.example.com')).toEqual({ bucket: 'photos', key: '/lead/ x/y', style: 'virtual-hosted' });
  });

  it('answers InvalidURI for a path that does not percent-decode', () => {
    expect(() => addressOf('photos.s3.example.com', '/%zz', 's3.example.com')).toThrow(expect.objectContaining({ code: 'InvalidURI' }));
    expect(() => addressOf('h', '/b/%E0', undefined)).toThrow(expect.objectContaining({ code: 'InvalidURI' }));
  });
});

describe('bucketFromHost', () => {
  it('matches case-insensitively, ignores a trailing dot, and needs a label before the domain', () => {
    expect(bucketFromHost('Photos.S3.Example.COM', 's3.example.com')).toBe('photos');
    expect(bucketFromHost('photos.s3.example.com.', 's3.example.com')).toBe('photos');
    expect(bucketFromHost('s3.example.com', 's3.example.com')).toBeUndefined();
    expect(bucketFromHost('xs3.example.com', 's3.example.com')).toBeUndefined();
    expect(bucketFromHost('photos.s3.example.com', undefined)).toBeUndefined();
  });
});

describe('accounts in the host', () => {
  const acct = '0123456789abcdef0123456789abcdef';
  it('reads <account>.<domain> as path-style in that account, <bucket>.<account>.<domain> as virtual-hosted', () => {
    expect(addressOf(`${acct}.s3.example.com`, '/photos/a.txt', 's3.example.com')).toEqual({ account: acct, bucket: 'photos', key: 'a.txt', style: 'path' });
    expect(addressOf(`${acct}.s3.example.com`, '/', 's3.example.com')).toEqual({ account: acct, bucket: undefined, key: undefined, style: 'path' });
    expect(addressOf(`photos.${acct}.s3.example.com`, '/a.txt', 's3.example.com')).toEqual({ account: acct, bucket: 'photos', key: 'a.txt', style: 'virtual-hosted' });
    expect(addressOf(`Photos.${acct.toUpperCase()}.S3.example.com`, '/', 's3.example.com')).toEqual({ account: acct, bucket: 'photos', key: undefined, style: 'virtual-hosted' });
  });
  it('leaves other labels to be bucket names', () => {
    expect(addressOf(`${acct.slice(1)}.s3.example.com`, '/k', 's3.example.com')).toEqual({ bucket: acct.slice(1), key: 'k', style: 'virtual-hosted' });
    expect(addressOf(`${acct}x.s3.example.com`, '/k', 's3.example.com')).toEqual({ bucket: `${acct}x`, key: 'k', style: 'virtual-hosted' });
    expect(addressOf(`${acct}.s3.example.com`, '/k', undefined)).toEqual({ bucket: 'k', key: undefined, style: 'path' });
  });
});
