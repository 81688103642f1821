/** Buckets of the account: list, create (with storage class), delete. */
import { useState } from 'preact/hooks';
import { call, get } from '../api';
import { href } from '../router';
import { Errors, Field, LoadState, useAction, useLoad } from '../ui';

/** The buckets page. */
export function BucketsPage({ account }: { account: string }) {
  const base = `/accounts/${account}/r2/buckets`;
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const list = useLoad(() => get<any>(base, { per_page: 100, cursor }), [account, cursor]);
  const [name, setName] = useState('');
  const [storageClass, setStorageClass] = useState('Standard');
  const create = useAction();
  const remove = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    if (await create.run(() => call('POST', base, { name: name.trim(), storageClass }))) { setName(''); list.reload(); }
  };
  const del = async (b: string) => {
    if (confirm(`Delete the bucket ${b}? Only an empty bucket can be deleted.`) && await remove.run(() => call('DELETE', `${base}/${b}`))) list.reload();
  };
  const next = list.data?.result_info?.cursor;
  return (
    <>
      <h1>Buckets</h1>
      <form class="card" onSubmit={submit}>
        <h2>Create a bucket</h2>
        <div class="toolbar">
          <Field label="Bucket name"><input name="bucket-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} /></Field>
          <Field label="Default storage class"><select value={storageClass} onChange={(e) => setStorageClass(e.currentTarget.value)}><option>Standard</option><option>InfrequentAccess</option></select></Field>
          <button type="submit" disabled={create.busy}>Create bucket</button>
        </div>
        <Errors error={create.error} />
      </form>
      <Errors error={remove.error} />
      <LoadState loading={list.loading} error={list.error} />
      {list.data ? (list.data.result.buckets.length === 0 ? <p>No buckets.</p> : (
        <table>
          <thead><tr><th scope="col">Bucket</th><th scope="col">Created</th><th scope="col">Storage class</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
          <tbody>{list.data.result.buckets.map((b: any) => (
            <tr key={b.name}>
              <td><a href={href('buckets', b.name)}>{b.name}</a></td><td>{b.creation_date}</td><td>{b.storage_class}</td>
              <td><button type="button" class="danger" aria-label={`Delete bucket ${b.name}`} onClick={() => del(b.name)}>Delete</button></td>
            </tr>
          ))}</tbody>
        </table>
      )) : null}
      <div class="toolbar">
        {cursor ? <button type="button" class="secondary" onClick={() => setCursor(undefined)}>First page</button> : null}
        {next ? <button type="button" class="secondary" onClick={() => setCursor(next)}>Next page</button> : null}
      </div>
    </>
  );
}
