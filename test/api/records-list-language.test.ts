/**
 * The full records list language through HTTP (reference §3): name/content/comment/tag comparisons, bare
 * aliases, tag_match (and tag-match), match=any with repeated parameters, search, order/direction,
 * case-insensitivity, TXT content by its unquoted text, and clear 400s for bad parameters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api } from '../helpers/api.js';
import { createFixtureZone, key } from './list-language-fixture.js';

type Any = any;
const Z = 'lang.example';

describe('records list language', () => {
  let server: TestServer;
  let zoneId: string;
  const get = async (query: string) => api(server, 'GET', `/zones/${zoneId}/dns_records?${query}`);
  /** Sorted record keys of a list. */
  const keys = async (query: string) => {
    const res = await get(query);
    if (res.status !== 200) throw new Error(`${query}: ${JSON.stringify(res.body)}`);
    expect(res.body.result_info!.total_count).toBe(res.body.result.length);
    return res.body.result.map((r: Any) => key(r, Z)).sort();
  };

  beforeAll(async () => {
    server = await startTestServer();
    zoneId = await createFixtureZone(server, Z);
  });
  afterAll(async () => { await server.stop(); });

  it('name: exact (bare alias, relative, full, @, any case), contains, startswith, endswith', async () => {
    const www = ['A www', 'AAAA www'];
    for (const q of ['name=www', 'name=WWW', `name=www.${Z}.`, `name.exact=Www.${Z.toUpperCase()}`]) expect(await keys(q)).toEqual(www);
    expect(await keys('name=@')).toEqual(['MX @', 'TXT @']);
    expect(await keys('name.contains=ww')).toEqual(['A www', 'AAAA www', 'TXT _acme-challenge.www']);
    expect(await keys('name.contains=WW')).toEqual(['A www', 'AAAA www', 'TXT _acme-challenge.www']);
    expect(await keys('name.startswith=www')).toEqual(www);
    expect(await keys(`name.startswith=www.${Z}.`)).toEqual(www);
    expect(await keys(`name.endswith=.www.${Z}`)).toEqual(['TXT _acme-challenge.www']);
    expect(await keys(`name.endswith=SHOP.${Z.toUpperCase()}.`)).toEqual(['CNAME shop']);
    // `_` and `%` are literal characters, not LIKE wildcards.
    expect(await keys('name.contains=_')).toEqual(['TXT _acme-challenge.www']);
    expect(await keys('name.contains=%25')).toEqual([]);
  });

  it('content: exact, contains, startswith, endswith; TXT by its unquoted text', async () => {
    expect(await keys('content=192.0.2.10')).toEqual(['A www']);
    expect(await keys('content.contains=192.0.2.1')).toEqual(['A api', 'A www']);
    expect(await keys('content.startswith=2001:DB8')).toEqual(['AAAA www']);
    expect(await keys('content.endswith=.25')).toEqual(['A mail']);
    expect(await keys(`content.exact=SHOP.${Z}`)).toEqual([]);
    expect(await keys(`content.exact=WWW.${Z}`)).toEqual(['CNAME shop']);
    expect(await keys('content.contains=spf1%20include')).toEqual(['TXT @']);
    expect(await keys('content.startswith=v%3Dspf1')).toEqual(['TXT @']);
    expect(await keys('content.endswith=~ALL')).toEqual(['TXT @']);
    expect(await keys('content=v%3Dspf1%20include%3A_spf.example%20~all')).toEqual(['TXT @']);
    expect(await keys('content.exact=%22v%3Dspf1%20include%3A_spf.example%20~all%22')).toEqual(['TXT @']);
    expect(await keys('content.contains=_')).toEqual(['TXT @', 'TXT _acme-challenge.www']);
  });

  it('finds a certbot / python-cloudflare TXT lookup (type, full name, unquoted token, per_page=1)', async () => {
    const res = await get(`type=TXT&name=_acme-challenge.www.${Z}&content=TokenABC_123&per_page=1`);
    expect(res.body.result).toHaveLength(1);
    expect(res.body.result[0].content).toBe('"TokenABC_123"');
    expect((await get(`type=TXT&name=_acme-challenge.www.${Z}&content=tokenabc_123&per_page=1`)).body.result).toHaveLength(1);
    expect((await get(`type=TXT&name=_acme-challenge.www.${Z}&content=TokenABC_999&per_page=1`)).body.result).toHaveLength(0);
  });

  it('comment: exact (bare alias), contains, startswith, endswith, present, absent', async () => {
    expect(await keys('comment=web%20front')).toEqual(['A www']);
    expect(await keys('comment.exact=WEB%20FRONT')).toEqual(['A www']);
    expect(await keys('comment.contains=SERV')).toEqual(['A api']);
    expect(await keys('comment.startswith=api')).toEqual(['A api']);
    expect(await keys('comment.endswith=front')).toEqual(['A www']);
    expect(await keys('comment.present=')).toEqual(['A api', 'A www', 'TXT @']);
    expect(await keys('comment.absent=1')).toEqual(['A mail', 'AAAA www', 'CNAME shop', 'MX @', 'TXT _acme-challenge.www']);
  });

  it('tags: bare tag (present / exact), present, absent, exact, contains, startswith, endswith — per tag, any case', async () => {
    expect(await keys('tag=env')).toEqual(['A api', 'A www', 'AAAA www']);
    expect(await keys('tag=env:PROD')).toEqual(['A www', 'AAAA www']);
    expect(await keys('tag.present=TEAM')).toEqual(['A www', 'CNAME shop']);
    expect(await keys('tag.absent=env')).toEqual(['A mail', 'CNAME shop', 'MX @', 'TXT @', 'TXT _acme-challenge.www']);
    expect(await keys('tag.exact=team:web')).toEqual(['A www']);
    expect(await keys('tag.contains=env:TAG')).toEqual(['A api']);
    expect(await keys('tag.startswith=team:sa')).toEqual(['CNAME shop']);
    expect(await keys('tag.endswith=env:ing')).toEqual(['A api']);
    expect(await keys('tag.contains=team:e')).toEqual(['A www', 'CNAME shop']);
    // The value is compared within one tag: "web" is a team value, never an env value.
    expect(await keys('tag.contains=env:web')).toEqual([]);
    expect(await keys('tag.exact=env:prod&tag.exact=team:web')).toEqual(['A www']);
  });

  it('tag_match and tag-match (any|all); match=any with repeated bare parameters; search ANDed regardless of match', async () => {
    const both = 'tag.exact=env:staging&tag.exact=team:sales';
    expect(await keys(`${both}&tag_match=any`)).toEqual(['A api', 'CNAME shop']);
    expect(await keys(`${both}&tag-match=ANY`)).toEqual(['A api', 'CNAME shop']);
    expect(await keys(`${both}&tag_match=all`)).toEqual([]);
    expect(await keys(both)).toEqual([]);
    expect(await keys('name=api&name=shop&match=any')).toEqual(['A api', 'CNAME shop']);
    expect(await keys('name=api&name=shop')).toEqual([]);
    expect(await keys('type=MX&tag=team:sales&match=any')).toEqual(['CNAME shop', 'MX @']);
    expect(await keys('type=A&tag=env:prod')).toEqual(['A www']);
    expect(await keys('type=A&content.endswith=.25&match=any')).toEqual(['A api', 'A mail', 'A www']);
    expect(await keys('search=front')).toEqual(['A www']);
    expect(await keys('search=SALES')).toEqual(['CNAME shop']);
    expect(await keys('search=spf1')).toEqual(['TXT @']);
    expect(await keys('search=mail')).toEqual(['A mail', 'MX @']);
    expect(await keys('type=A&search=api&match=any')).toEqual(['A api']);
  });

  it('type (any case) and proxied', async () => {
    expect(await keys('type=a')).toEqual(['A api', 'A mail', 'A www']);
    expect(await keys('type=A&type=AAAA&match=any')).toEqual(['A api', 'A mail', 'A www', 'AAAA www']);
    expect(await keys('proxied=true')).toEqual(['A www']);
    expect((await keys('proxied=FALSE')).length).toBe(7);
  });

  it('orders by type, name, content, ttl, proxied in both directions', async () => {
    const order = async (q: string) => (await get(q)).body.result.map((r: Any) => key(r, Z));
    expect(await order('type=A&order=name')).toEqual(['A api', 'A mail', 'A www']);
    expect(await order('type=A&order=NAME&direction=DESC')).toEqual(['A www', 'A mail', 'A api']);
    expect(await order('type=A&order=content&direction=desc')).toEqual(['A mail', 'A api', 'A www']);
    expect(await order('name=www&order=ttl&direction=desc')).toEqual(['AAAA www', 'A www']);
    expect((await order('order=ttl&direction=desc'))[0]).toBe('AAAA www');
    expect((await order('order=proxied&direction=desc'))[0]).toBe('A www');
    expect((await order('name.contains=www'))).toEqual(['A www', 'AAAA www', 'TXT _acme-challenge.www']);
    const paged = await get('order=name&per_page=3&page=2');
    expect(paged.body.result_info).toEqual({ page: 2, per_page: 3, count: 3, total_count: 8, total_pages: 3 });
  });

  it('answers bad parameters with a 400 envelope naming each', async () => {
    const cases: [string, RegExp][] = [
      ['type=BOGUS', /Invalid type "BOGUS": expected a record type/],
      ['name.foo=x', /Invalid name\.foo "x": use name\.exact, \.contains/],
      ['content.like=x', /Invalid content\.like/],
      ['comment.weird=x', /Invalid comment\.weird/],
      ['tag.exact=nocolon', /Invalid tag\.exact "nocolon": expected NAME:VALUE/],
      ['tag.present=bad%20name', /Invalid tag\.present "bad name"/],
      ['tag=a:b&tag_match=some', /Invalid tag_match "some": use one of any, all/],
      ['tag-match=both', /Invalid tag-match "both"/],
      ['tag.fuzzy=a:b', /Invalid tag\.fuzzy/],
      ['proxied=yes', /Invalid proxied "yes"/],
      ['order=size', /Invalid order "size"/],
      ['direction=up', /Invalid direction "up"/],
      ['match=some', /Invalid match "some"/],
    ];
    for (const [q, message] of cases) {
      const res = await get(q);
      expect(res.status, q).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.result).toBeNull();
      expect(res.body.errors[0]!.code).toBe(1106);
      expect(res.body.errors[0]!.message).toMatch(message);
    }
    const many = await get('type=NOPE&tag.exact=x&order=size');
    expect(many.body.errors.map((e) => e.code)).toEqual([1106, 1106, 1106]);
  });
});
