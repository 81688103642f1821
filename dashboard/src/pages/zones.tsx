/** Zones: list (search by name, paging), create, delete, status and name servers. */
import { useState } from 'preact/hooks';
import { call, get } from '../api';
import { href, navigate } from '../router';
import { Errors, Field, LoadState, Pager, useAction, useLoad } from '../ui';

/** The zones page. */
export function ZonesPage({ account }: { account: string }) {
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const list = useLoad(() => get<any[]>('/zones', { name: query || undefined, page, per_page: 50 }), [query, page]);
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
      <form class="toolbar" role="search" onSubmit={(e) => { e.preventDefault(); setPage(1); setQuery(search.trim()); }}>
        <Field label="Find a zone by name"><input type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} /></Field>
        <button type="submit" class="secondary">Search</button>
        {query ? <button type="button" class="secondary" onClick={() => { setSearch(''); setQuery(''); }}>Show all</button> : null}
      </form>
      <Errors error={remove.error} />
      <LoadState loading={list.loading} error={list.error} />
      {list.data ? (
        list.data.result.length === 0 ? <p>No zones{query ? ` named ${query}` : ''}.</p> : (
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
