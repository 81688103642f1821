/**
 * The zones list's `name` filter with production's operators (`contains:`, `starts_with:`, `ends_with:`,
 * `not_equal:`, `equal:` and the `_case_sensitive` forms), through the official SDK, on SQLite and PostgreSQL
 * (LIKE differs: case and the escape character); a second user's zone never matches the first user's search.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Cloudflare from 'cloudflare';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { freshPostgresUrl } from '../helpers/postgres.js';

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`zones list name operators (${dialect})`, () => {
    let server: TestServer;
    let db: { url: string; drop(): Promise<void> } | undefined;
    let admin: Cloudflare;
    let other: Cloudflare;
    beforeAll(async () => {
      db = dialect === 'postgres' ? await freshPostgresUrl('zone_name_filter') : undefined;
      server = await startTestServer(db ? { flags: { 'database-url': db.url } } : {});
      admin = server.sdk();
      const account = (await admin.accounts.list()).result[0]!.id;
      for (const name of ['alpha-shop.example', 'beta-shop.example', 'gamma.example', 'de-lta.example']) await admin.zones.create({ account: { id: account }, name });
      const user = await addUser(server, `filter-other-${dialect}@example.com`, undefined, db ? { databaseUrl: db.url } : {});
      other = user.sdk();
      const otherAccount = (await other.accounts.list()).result[0]!.id;
      await other.zones.create({ account: { id: otherAccount }, name: 'shop-of-other.example' });
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
      await db?.drop();
    });

    const names = async (sdk: Cloudflare, name: string) => (await sdk.zones.list({ name })).result.map((z) => z.name).sort();

    it('contains, starts_with, ends_with, not_equal and equal, on the caller\'s zones only', async () => {
      expect(await names(admin, 'contains:shop')).toEqual(['alpha-shop.example', 'beta-shop.example']);
      expect(await names(admin, 'contains:SHOP')).toEqual(['alpha-shop.example', 'beta-shop.example']);
      expect(await names(admin, 'starts_with:alpha')).toEqual(['alpha-shop.example']);
      expect(await names(admin, 'ends_with:shop.example')).toEqual(['alpha-shop.example', 'beta-shop.example']);
      expect(await names(admin, 'not_equal:gamma.example')).toEqual(['alpha-shop.example', 'beta-shop.example', 'de-lta.example']);
      expect(await names(admin, 'equal:gamma.example')).toEqual(['gamma.example']);
      expect(await names(admin, 'GAMMA.example')).toEqual(['gamma.example']);
      expect(await names(other, 'contains:shop')).toEqual(['shop-of-other.example']);
    });

    it('case-sensitive forms against lower-case names, LIKE wildcards taken literally, unknown operators as part of the name', async () => {
      expect(await names(admin, 'contains_case_sensitive:shop')).toEqual(['alpha-shop.example', 'beta-shop.example']);
      expect(await names(admin, 'contains_case_sensitive:Shop')).toEqual([]);
      expect(await names(admin, 'contains:_')).toEqual([]);
      expect(await names(admin, 'contains:a-')).toEqual(['alpha-shop.example', 'beta-shop.example']);
      expect(await names(admin, 'contains:%')).toEqual([]);
      expect(await names(admin, 'starts_with:a%')).toEqual([]);
      expect(await names(admin, 'like:shop')).toEqual([]);
      const page = await admin.zones.list({ name: 'contains:example', per_page: 2 });
      expect(page.result).toHaveLength(2);
      expect((page as unknown as { result_info: { total_count: number } }).result_info.total_count).toBe(4);
    });
  });
}
