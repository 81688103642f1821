/**
 * Zones of the picked account: list (search by name with the API's operators: contains, starts with, ends with,
 * exact), paging, create, delete, status and name servers.
 */
import { useState } from 'preact/hooks';
import { call, get } from '../api';
import { href, navigate } from '../router';
import { Errors, Field, LoadState, Pager, useAction, useLoad } from '../ui';

/** The zones page. */
export function ZonesPage({ account }: { account: string }) {
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState('contains');
  const [asked, setAsked] = useState('contains');
  const [page, setPage] = useState(1);
  const list = useLoad(() => get<any[]>('/zones', { name: query ? `${asked}:${query}` : undefined, 'account.id': account, page, per_page: 50 }), [query, asked, page, account]);
  const [name, setName] = useState('');
  const create = useAction();
  const remove = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    let id = '';
    if (await create.run(async () => { id = (await call('POST', '/zones', { name: name.trim(), account: { id: account }, type: 'full' })).result.id; })) {
      setName('');
      navigate('zones', id);
    }
  };
  const del = async (zone: any) => {
    if (!confirm(`Delete the zone ${zone.name} and all its records?`)) return;
    if (await remove.run(() => call('DELETE', `/zones/${zone.id}`))) list.reload();
  };
  return (
    <>
      <h1>Zones</h1>
      <form class="card" onSubmit={submit}>
        <h2>Add a zone</h2>
        <div class="toolbar">
          <Field label="Zone name"><input name="zone-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="example.com" /></Field>
          <button type="submit" disabled={create.busy}>Add zone</button>
        </div>
        <Errors error={create.error} />
      </form>
      <form class="toolbar" role="search" aria-label="Find zones" onSubmit={(e) => { e.preventDefault(); setPage(1); setAsked(mode); setQuery(search.trim()); }}>
        <Field label="Find a zone by name"><input type="search" name="zone-search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} /></Field>
        <Field label="Name match"><select name="zone-search-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value)}>
          <option value="contains">contains</option><option value="starts_with">starts with</option><option value="ends_with">ends with</option><option value="equal">is exactly</option>
        </select></Field>
        <button type="submit" class="secondary">Search</button>
        {query ? <button type="button" class="secondary" onClick={() => { setSearch(''); setQuery(''); }}>Show all</button> : null}
      </form>
      <Errors error={remove.error} />
      <LoadState loading={list.loading} error={list.error} />
      {list.data ? (
        list.data.result.length === 0 ? <p>No zones{query ? ` whose name ${asked === 'equal' ? 'is' : asked.replace('_', ' ')} ${query}` : ''}.</p> : (
          <table>
            <thead><tr><th scope="col">Zone</th><th scope="col">Status</th><th scope="col">Name servers</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
            <tbody>
              {list.data.result.map((z) => (
                <tr key={z.id}>
                  <td><a href={href('zones', z.id)}>{z.name}</a></td>
                  <td>{z.status}</td>
                  <td>{(z.name_servers ?? []).join(', ')}</td>
                  <td><button type="button" class="danger" onClick={() => del(z)} aria-label={`Delete zone ${z.name}`}>Delete</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      ) : null}
      <Pager info={list.data?.result_info} page={page} onPage={setPage} />
    </>
  );
}
