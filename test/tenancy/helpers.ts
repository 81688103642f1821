/** Helpers of the two-tenant suites: the v4 error code of an SDK call, zone status, record ids. */
import type Cloudflare from 'cloudflare';

/** The first v4 error code of a rejected SDK call (throws when the call succeeded). */
export async function errorCode(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (err) {
    const code = (err as { errors?: { code?: number }[] }).errors?.[0]?.code;
    if (typeof code === 'number') return code;
    throw err;
  }
  throw new Error('the call succeeded');
}

/** The HTTP status of a rejected SDK call (throws when the call succeeded). */
export async function errorStatus(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (typeof status === 'number') return status;
    throw err;
  }
  throw new Error('the call succeeded');
}

/** The zone's status as its owner sees it. */
export async function statusOf(sdk: Cloudflare, zoneId: string): Promise<string> {
  return (await sdk.zones.get({ zone_id: zoneId })).status as string;
}

/** Creates a zone through the SDK; returns its id and status. */
export async function addZone(sdk: Cloudflare, accountId: string, name: string): Promise<{ id: string; status: string }> {
  const zone = await sdk.zones.create({ account: { id: accountId }, name, type: 'full' });
  return { id: zone.id, status: zone.status as string };
}

/** Adds NS records at `name` (relative to the zone) pointing at each of `targets`; returns their ids. */
export async function delegate(sdk: Cloudflare, zoneId: string, name: string, targets: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const content of targets) ids.push((await sdk.dns.records.create({ zone_id: zoneId, type: 'NS', name, content, ttl: 1 } as never)).id!);
  return ids;
}
