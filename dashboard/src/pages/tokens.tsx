/**
 * The user's API tokens: list, create from permission groups and resources (the value is shown once), roll,
 * disable or enable, delete.
 */
import { useMemo, useState } from 'preact/hooks';
import { call, get } from '../api';
import { Errors, Field, LoadState, useAction, useLoad } from '../ui';

const ZONE = 'com.cloudflare.api.account.zone';
const ACCOUNT = 'com.cloudflare.api.account';
const USER = 'com.cloudflare.api.user';
const BUCKET = 'com.cloudflare.edge.r2.bucket';

/** The tokens page. */
export function TokensPage({ account }: { account: string }) {
  const tokens = useLoad(() => get<any[]>('/user/tokens', { per_page: 50 }), []);
  const [value, setValue] = useState<{ name: string; value: string } | undefined>(undefined);
  const action = useAction();
  const roll = async (t: any) => {
    if (!confirm(`Roll ${t.name}? Its current value stops working at once.`)) return;
    await action.run(async () => setValue({ name: t.name, value: (await call('PUT', `/user/tokens/${t.id}/value`, {})).result }));
  };
  const setStatus = async (t: any, status: string) => {
    const body = { name: t.name, policies: t.policies, status, ...(t.condition ? { condition: t.condition } : {}), ...(t.expires_on ? { expires_on: t.expires_on } : {}), ...(t.not_before ? { not_before: t.not_before } : {}) };
    if (await action.run(() => call('PUT', `/user/tokens/${t.id}`, body))) tokens.reload();
  };
  const del = async (t: any) => {
    if (confirm(`Delete the token ${t.name}?`) && await action.run(() => call('DELETE', `/user/tokens/${t.id}`))) tokens.reload();
  };
  return (
    <>
      <h1>API tokens</h1>
      {value ? (
        <section class="card ok" aria-label="New token value" role="status">
          <p>The value of <strong>{value.name}</strong>; it is shown only this once:</p>
          <pre class="token-value">{value.value}</pre>
          <button type="button" class="secondary" onClick={() => setValue(undefined)}>I have copied it</button>
        </section>
      ) : null}
      <CreateToken account={account} onCreated={(name, v) => { setValue({ name, value: v }); tokens.reload(); }} />
      <Errors error={action.error} />
      <LoadState loading={tokens.loading} error={tokens.error} />
      {tokens.data ? (
        <table>
          <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Permissions</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
          <tbody>{tokens.data.result.map((t) => (
            <tr key={t.id}>
              <td>{t.name}</td><td>{t.status}</td>
              <td>{(t.policies ?? []).flatMap((p: any) => p.permission_groups.map((g: any) => g.name ?? g.id)).join(', ')}</td>
              <td>{t.expires_on ?? 'never'}</td><td>{t.last_used_on ?? 'never'}</td>
              <td>
                <button type="button" class="secondary" aria-label={`Roll ${t.name}`} onClick={() => roll(t)}>Roll</button>{' '}
                {t.status === 'active'
                  ? <button type="button" class="secondary" aria-label={`Disable ${t.name}`} onClick={() => setStatus(t, 'disabled')}>Disable</button>
                  : <button type="button" class="secondary" aria-label={`Enable ${t.name}`} onClick={() => setStatus(t, 'active')}>Enable</button>}{' '}
                <button type="button" class="danger" aria-label={`Delete ${t.name}`} onClick={() => del(t)}>Delete</button>
              </td>
            </tr>
          ))}</tbody>
        </table>
      ) : null}
    </>
  );
}

function CreateToken({ account, onCreated }: { account: string; onCreated: (name: string, value: string) => void }) {
  const groups = useLoad(() => get<any[]>('/user/tokens/permission_groups'), []);
  const zones = useLoad(() => get<any[]>('/zones', { per_page: 50 }), []);
  const buckets = useLoad(() => get<any>(`/accounts/${account}/r2/buckets`, { per_page: 100 }), [account]);
  const [bucket, setBucket] = useState('');
  const [name, setName] = useState('');
  const [filter, setFilter] = useState('');
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [zoneId, setZoneId] = useState('');
  const [expires, setExpires] = useState('');
  const create = useAction();
  const all = groups.data?.result ?? [];
  const shown = useMemo(() => all.filter((g) => g.name.toLowerCase().includes(filter.toLowerCase())), [all, filter]);
  const toggle = (id: string) => setChosen((s) => { const n = new Set(s); if (n.has(id)) n.delete(id); else n.add(id); return n; });
  const submit = async (e: Event) => {
    e.preventDefault();
    const ok = await create.run(async () => {
      const byScope = new Map<string, { id: string }[]>();
      for (const g of all.filter((g) => chosen.has(g.id))) {
        const scope = g.scopes?.[0] ?? ACCOUNT;
        byScope.set(scope, [...(byScope.get(scope) ?? []), { id: g.id }]);
      }
      const policies = [];
      for (const [scope, permission_groups] of byScope) {
        let resources: Record<string, string>;
        if (scope === ZONE) resources = zoneId ? { [`${ZONE}.${zoneId}`]: '*' } : { [`${ACCOUNT}.${account}`]: '*' };
        else if (scope === USER) resources = { [`${USER}.${(await get<any>('/user')).result.id}`]: '*' };
        else if (scope === BUCKET) resources = { [`${BUCKET}.${account}_default_${bucket || '*'}`]: '*' };
        else resources = { [`${ACCOUNT}.${account}`]: '*' };
        policies.push({ effect: 'allow', resources, permission_groups });
      }
      const body: Record<string, unknown> = { name: name.trim(), policies };
      if (expires) body.expires_on = new Date(expires).toISOString().replace(/\.\d+Z$/, 'Z');
      const created = (await call('POST', '/user/tokens', body)).result;
      onCreated(created.name, created.value);
    });
    if (ok) { setName(''); setChosen(new Set()); }
  };
  return (
    <form class="card" onSubmit={submit}>
      <h2>Create a token</h2>
      <div class="toolbar">
        <Field label="Token name"><input name="token-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} /></Field>
        <Field label="Zones of zone permissions">
          <select name="token-zone" value={zoneId} onChange={(e) => setZoneId(e.currentTarget.value)}>
            <option value="">all zones of the account</option>
            {(zones.data?.result ?? []).map((z) => <option key={z.id} value={z.id}>{z.name}</option>)}
          </select>
        </Field>
        <Field label="Buckets of bucket permissions">
          <select name="token-bucket" value={bucket} onChange={(e) => setBucket(e.currentTarget.value)}>
            <option value="">all buckets of the account</option>
            {((buckets.data?.result?.buckets ?? []) as any[]).map((b) => <option key={b.name} value={b.name}>{b.name}</option>)}
          </select>
        </Field>
        <Field label="Expires (optional)"><input type="datetime-local" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} /></Field>
      </div>
      <fieldset>
        <legend>Permission groups ({chosen.size} chosen)</legend>
        <Field label="Filter permission groups"><input type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} /></Field>
        <LoadState loading={groups.loading} error={groups.error} />
        <div class="grid groups">
          {shown.map((g) => <label key={g.id} class="inline"><input type="checkbox" checked={chosen.has(g.id)} onChange={() => toggle(g.id)} /> {g.name}</label>)}
        </div>
      </fieldset>
      <Errors error={create.error} />
      <button type="submit" disabled={create.busy || chosen.size === 0}>Create token</button>
    </form>
  );
}
