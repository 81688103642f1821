import { describe, expect, it } from 'vitest';
import { check } from './test-support.js';
import { srvNameParts } from './srv.js';

const name = '_xmpp._tcp.example.com';

describe('SRV', () => {
  it('derives content and echoes priority', () => {
    expect(check('SRV', { data: { priority: 10, weight: 5, port: 5223, target: 'Server.Example.com.' } }, { recordName: name }).value).toEqual({
      content: '5 5223 server.example.com', data: { priority: 10, weight: 5, port: 5223, target: 'server.example.com' }, priority: 10,
    });
    expect(check('SRV', { data: { priority: 0, weight: 0, port: 0, target: '.' } }, { recordName: name }).value?.content).toBe('0 0 .');
  });
  it('takes a top-level priority when data.priority is absent', () => {
    expect(check('SRV', { priority: 7, data: { weight: 1, port: 2, target: 'a.example.com' } }, { recordName: name }).value?.priority).toBe(7);
    expect(check('SRV', { priority: 7, data: { priority: 3, weight: 1, port: 2, target: 'a.example.com' } }, { recordName: name }).value?.priority).toBe(3);
  });
  it('reads content with the top-level priority when data is absent', () => {
    expect(check('SRV', { content: '5 5223 Server.example.com', priority: 10 }, { recordName: name }).value).toEqual({
      content: '5 5223 server.example.com', data: { priority: 10, weight: 5, port: 5223, target: 'server.example.com' }, priority: 10,
    });
    expect(check('SRV', { content: '5 5223 server.example.com' }, { recordName: name }).codes).toEqual([9514]);
  });
  it('requires the _service._proto form', () => {
    const r = check('SRV', { data: { priority: 1, weight: 1, port: 1, target: 'a.example.com' } }, { recordName: 'xmpp.example.com' });
    expect(r.codes).toEqual([9507]);
  });
  it('checks the numeric ranges and the target', () => {
    const r = check('SRV', { data: { priority: -1, weight: 65536, port: 'x', target: 'bad target' } }, { recordName: name });
    expect(r.codes).toEqual([9512, 9512, 9512, 9512]);
    expect(check('SRV', { data: { weight: 1, port: 1, target: 'a.example.com' } }, { recordName: name }).messages[0])
      .toBe('Content for SRV record is invalid: data.priority is required and must be an integer from 0 to 65535.');
  });
  it('refuses data.service/proto/name from 2024-05-31', () => {
    const r = check('SRV', { data: { priority: 1, weight: 1, port: 1, target: 'a.example.com', service: '_xmpp', proto: '_tcp' } }, { recordName: name, apiDate: '2024-05-31' });
    expect(r.codes).toEqual([9522, 9522]);
  });
  it('accepts matching data.service/proto/name before 2024-05-31', () => {
    const data = { priority: 1, weight: 1, port: 1, target: 'a.example.com', service: '_xmpp', proto: '_tcp', name: 'example.com' };
    const r = check('SRV', { data }, { recordName: name, apiDate: '2024-05-30' });
    expect(r.codes).toEqual([]);
    expect(r.value).toEqual({ content: '1 1 a.example.com', data: { priority: 1, weight: 1, port: 1, target: 'a.example.com' }, priority: 1 });
    const bad = check('SRV', { data: { ...data, proto: '_udp' } }, { recordName: name, apiDate: '2024-05-30' });
    expect(bad.codes).toEqual([9523]);
  });
  it('builds the name from the old fields when the name lacks them', () => {
    const data = { priority: 1, weight: 1, port: 1, target: 'a.example.com', service: '_sip', proto: '_UDP', name: 'voice' };
    const r = check('SRV', { data }, { recordName: 'example.com', apiDate: '2023-01-01' });
    expect(r.value?.name).toBe('_sip._udp.voice.example.com');
    expect(check('SRV', { data: { ...data, service: 'sip' } }, { recordName: 'example.com', apiDate: '2023-01-01' }).codes).toEqual([9512]);
  });
  it('splits names into parts', () => {
    expect(srvNameParts('_sip._tcp.example.com')).toEqual({ service: '_sip', proto: '_tcp', name: 'example.com' });
    expect(srvNameParts('sip._tcp.example.com')).toBeUndefined();
  });
});
