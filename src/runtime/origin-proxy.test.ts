import { describe, expect, it } from 'vitest';
import { AddressPolicy } from '../edge/address-policy.js';
import { originAddress } from './origin-proxy.js';

describe('originAddress', () => {
  const policy = new AddressPolicy();

  it('refuses private, link-local, loopback and NAT64 contents with 1000, before any connection is made', async () => {
    for (const content of ['10.0.0.1', '169.254.169.254', '127.0.0.1', '0.0.0.0', '::1', '::ffff:127.0.0.1', '64:ff9b::a9fe:a9fe', 'fd00::1', '100.64.0.1']) {
      expect(await originAddress(content, policy), content).toEqual({ prohibited: 1000, address: content });
    }
  });

  it('resolves a name and refuses it with 1002 when it resolves to a prohibited address', async () => {
    const to = await originAddress('localhost', policy);
    expect(to).toMatchObject({ prohibited: 1002 });
    expect(['127.0.0.1', '::1']).toContain((to as { address: string }).address);
  });

  it('hands back the checked address itself for a permitted content; an allowed range lets loopback through', async () => {
    expect(await originAddress('93.184.216.34', policy)).toEqual({ address: '93.184.216.34', family: 4 });
    expect(await originAddress('2606:4700::1111', policy)).toEqual({ address: '2606:4700::1111', family: 6 });
    const loop = new AddressPolicy({ allow: ['127.0.0.0/8', '::1/128'] });
    expect(await originAddress('127.0.0.1', loop)).toEqual({ address: '127.0.0.1', family: 4 });
    expect(await originAddress('localhost', loop)).toMatchObject({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) });
  });
});
