/**
 * A script's bucket binding follows the bucket's own settings, as the S3 and v4 object routes do: a put
 * without a storage class stores the bucket's default storage class, and a change of that default reaches
 * the script within a second or two. A second account's bucket of the same name keeps its own default.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId as adminAccountOf } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { edgeRequest } from './request.js';
import { eventually } from './harness.js';
import { MemoryCatalog } from './memory-catalog.js';

const BUCKET = 'cold-archive';
const SCRIPT = `export default {
  async fetch(request, env) {
    const implicit = await env.B.put('implicit', 'x');
    const explicit = await env.B.put('explicit', 'x', { storageClass: 'Standard' });
    const read = await env.B.head('implicit');
    return Response.json({ implicit: implicit.storageClass, explicit: explicit.storageClass, read: read.storageClass });
  },
};`;

describe('bucket binding: the bucket default storage class', () => {
  let server: TestServer;
  const catalog = new MemoryCatalog();

  beforeAll(async () => {
    server = await startTestServer({ flags: { edge: '127.0.0.1:0' }, edgeCatalog: catalog });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  const classes = async (host: string) => {
    const res = await edgeRequest(server.running.edgeUrl!, host);
    expect(res.status, res.body).toBe(200);
    return JSON.parse(res.body) as Record<string, string>;
  };

  it('stores the bucket default for a put without a storage class, and follows a change of it', async () => {
    const account = await adminAccountOf(server);
    await server.sdk().r2.buckets.create({ account_id: account, name: BUCKET, storageClass: 'InfrequentAccess' });
    catalog.deploy('archive.test', SCRIPT, { accountId: account, bindings: [{ type: 'r2_bucket', name: 'B', bucketName: BUCKET }] });
    expect(await classes('archive.test')).toEqual({ implicit: 'InfrequentAccess', explicit: 'Standard', read: 'InfrequentAccess' });

    await server.sdk().r2.buckets.edit(BUCKET, { account_id: account, storage_class: 'Standard' });
    await eventually(async () => expect(await classes('archive.test')).toEqual({ implicit: 'Standard', explicit: 'Standard', read: 'Standard' }));
  });

  it("a second account's bucket of the same name has its own default", async () => {
    const account = await adminAccountOf(server);
    await server.sdk().r2.buckets.edit(BUCKET, { account_id: account, storage_class: 'InfrequentAccess' });
    const other = await addUser(server, 'second-user@example.com');
    await other.sdk().r2.buckets.create({ account_id: other.accountId, name: BUCKET });
    catalog.deploy('other.test', SCRIPT, { accountId: other.accountId, bindings: [{ type: 'r2_bucket', name: 'B', bucketName: BUCKET }] });
    expect(await classes('other.test')).toEqual({ implicit: 'Standard', explicit: 'Standard', read: 'Standard' });
    await eventually(async () => expect(await classes('archive.test')).toEqual({ implicit: 'InfrequentAccess', explicit: 'Standard', read: 'InfrequentAccess' }));
  });
});
