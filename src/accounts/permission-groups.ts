/**
 * The API token permission groups Stratus honours: the production service's ids, names and scopes for the
 * groups that govern what Stratus serves (zones, DNS records, zone and DNS settings, accounts, API tokens,
 * buckets and objects over the S3 API, Workers scripts and routes),
 * each mapped to the capabilities it grants. A Write group grants its Read capability too. Tokens may name
 * only these groups (`GET /user/tokens/permission_groups` lists them).
 */

/** What a request needs; `<family>:read` or `<family>:edit`. */
export type Capability =
  | 'zone:read' | 'zone:edit'
  | 'dns:read' | 'dns:edit'
  | 'zone_settings:read' | 'zone_settings:edit'
  /** Universal SSL, certificate packs, custom certificates of a zone. */
  | 'ssl:read' | 'ssl:edit'
  | 'zone_dns_settings:read' | 'zone_dns_settings:edit'
  | 'account_settings:read' | 'account_settings:edit'
  | 'account_dns_settings:read' | 'account_dns_settings:edit'
  | 'account_tokens:read' | 'account_tokens:edit'
  | 'user_tokens:read' | 'user_tokens:edit'
  /** Buckets themselves (list, create, delete, their CORS): account-level R2 Storage groups. */
  | 'storage:read' | 'storage:edit'
  /** Objects in a bucket (S3 object operations). */
  | 'bucket_item:read' | 'bucket_item:edit'
  /** Workers scripts of an account: upload, versions, deployments, secrets, settings, the workers subdomain. */
  | 'workers_scripts:read' | 'workers_scripts:edit'
  /** Workers routes of a zone. */
  | 'workers_routes:read' | 'workers_routes:edit';

/** The resource kind a group applies to (production's scope names). */
export type PermissionScope = 'com.cloudflare.api.account.zone' | 'com.cloudflare.api.account' | 'com.cloudflare.api.user' | 'com.cloudflare.edge.r2.bucket';

/** One permission group. */
export interface PermissionGroup {
  id: string;
  name: string;
  description: string;
  scope: PermissionScope;
  /** Capabilities the group grants on the resources of a policy. */
  grants: readonly Capability[];
}

const ZONE: PermissionScope = 'com.cloudflare.api.account.zone';
const ACCOUNT: PermissionScope = 'com.cloudflare.api.account';
const USER: PermissionScope = 'com.cloudflare.api.user';
const BUCKET: PermissionScope = 'com.cloudflare.edge.r2.bucket';

/** A Read group and its Write group over one capability family. */
function pair(family: string, scope: PermissionScope, label: string, readId: string, writeId: string, what: string): PermissionGroup[] {
  const read = `${family}:read` as Capability;
  const edit = `${family}:edit` as Capability;
  return [
    { id: readId, name: `${label} Read`, description: `Grants read access to ${what}`, scope, grants: [read] },
    { id: writeId, name: `${label} Write`, description: `Grants write access to ${what}`, scope, grants: [read, edit] },
  ];
}

/** Every group Stratus honours, in name order. */
export const PERMISSION_GROUPS: readonly PermissionGroup[] = [
  ...pair('account_tokens', ACCOUNT, 'Account API Tokens', 'eb56a6953c034b9d97dd838155666f06', '5bc3f8b21c554832afc660159ab75fa4', 'account API Tokens'),
  ...pair('account_dns_settings', ACCOUNT, 'Account DNS Settings', 'cfa964bcdafc4ab39704e7476154e41b', 'dc44f27f48ab405392a5f69fe822bd01', 'Account DNS Settings'),
  ...pair('account_settings', ACCOUNT, 'Account Settings', 'c1fde68c7bcc44588cbb6ddbc16d6480', '1af1fa2adc104452b74a9a3364202f20', 'Account resources and settings'),
  ...pair('user_tokens', USER, 'API Tokens', '0cc3a61731504c89b99ec1be78b77aa0', '686d18d5ac6c441c867cbf6771e58a0a', "user's API Tokens"),
  ...pair('dns', ZONE, 'DNS', '82e64a83756745bbbb1c9c2701bf816b', '4755a26eedb94da69e1066d98aa820be', 'DNS'),
  ...pair('zone_dns_settings', ZONE, 'Zone DNS Settings', '0a6cfe8cd3ed445e918579e2fb13087b', 'c4df38be41c247b3b4b7702e76eadae0', 'Zone DNS Settings'),
  ...pair('zone', ZONE, 'Zone', 'c8fed203ed3043cba015a93ad1616f1f', 'e6d2666161e84845a636613608cee8d5', 'zone management'),
  ...pair('zone_settings', ZONE, 'Zone Settings', '517b21aee92c4d89936c976ba6e4be55', '3030687196b94b638145a3953da2b699', 'zone settings'),
  ...pair('ssl', ZONE, 'SSL and Certificates', '7b7216b327b04b8fbc8f524e1f9b7531', 'c03055bc037c4ea9afb9a9f104b7b721', 'SSL and Certificates'),
  // Storage over the S3 API (a token's id and the SHA-256 of its value are an S3 key pair, as in production).
  { id: '6a018a9f2fc74eb6b293b0c548f38b39', name: 'Workers R2 Storage Bucket Item Read', description: 'Grants read access to Cloudflare R2 Bucket Scoped Storage', scope: BUCKET, grants: ['bucket_item:read'] },
  { id: '2efd5506f9c8494dacb1fa10a3e7d5b6', name: 'Workers R2 Storage Bucket Item Write', description: 'Grants write access to Cloudflare R2 Bucket Scoped Storage', scope: BUCKET, grants: ['bucket_item:read', 'bucket_item:edit'] },
  { id: 'b4992e1108244f5d8bfbd5744320c2e1', name: 'Workers R2 Storage Read', description: 'Grants read access to Cloudflare R2 Storage', scope: ACCOUNT, grants: ['storage:read', 'bucket_item:read'] },
  { id: 'bf7481a1826f439697cb59a20b22293e', name: 'Workers R2 Storage Write', description: 'Grants write access to Cloudflare R2 Storage', scope: ACCOUNT, grants: ['storage:read', 'storage:edit', 'bucket_item:read', 'bucket_item:edit'] },
  ...pair('workers_routes', ZONE, 'Workers Routes', '2072033d694d415a936eaeb94e6405b8', '28f4b596e7d643029c524985477ae49a', 'Cloudflare Workers and Workers KV Storage'),
  ...pair('workers_scripts', ACCOUNT, 'Workers Scripts', '1a71c399035b4950a1bd1466bbe4f420', 'e086da7e2179491d91ee5f35b3ca210a', 'Cloudflare Workers scripts'),
];

const BY_ID = new Map(PERMISSION_GROUPS.map((g) => [g.id, g]));

/** The group with this id, if Stratus honours it. */
export function permissionGroup(id: string): PermissionGroup | undefined {
  return BY_ID.get(id);
}

/** The group as `GET …/tokens/permission_groups` lists it. */
export function permissionGroupView(g: PermissionGroup): Record<string, unknown> {
  return { id: g.id, name: g.name, description: g.description, scopes: [g.scope] };
}
