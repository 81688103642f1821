/**
 * A zone's DNS records: the list language's filters, sort and server-side paging; create and edit with a form
 * per type; proxied toggle; batch delete; BIND import and export; what DNS answers now (dns-answer.tsx).
 */
import { useState } from 'preact/hooks';
import { call, get, send, saveResponse } from '../api';
import { recordBody, TYPE_FORMS, TYPES } from '../record-types';
import { Errors, Field, LoadState, Pager, useAction, useLoad } from '../ui';
import { DnsAnswer } from './dns-answer';

interface Filters { type: string; name: string; content: string; proxied: string; tag: string; comment: string; search: string; match: string }
const NO_FILTERS: Filters = { type: '', name: '', content: '', proxied: '', tag: '', comment: '', search: '', match: 'all' };

/** The DNS records tab of a zone. */
export function RecordsTab({ zone }: { zone: any }) {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [order, setOrder] = useState('type');
  const [direction, setDirection] = useState('asc');
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState(50);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<any | 'new' | undefined>(undefined);
  // Bumped by every change made here: the live DNS answer is asked again.
  const [version, setVersion] = useState(0);
  const changed = () => { setVersion((v) => v + 1); list.reload(); };
  const base = `/zones/${zone.id}/dns_records`;
  const list = useLoad(() => get<any[]>(base, {
    type: filters.type, 'name.contains': filters.name, 'content.contains': filters.content, proxied: filters.proxied,
    tag: filters.tag, 'comment.contains': filters.comment, search: filters.search, match: filters.match === 'all' ? undefined : filters.match,
    order, direction, page, per_page: perPage,
  }), [filters, order, direction, page, perPage]);
  const rowAction = useAction();
  const records = list.data?.result ?? [];
  const setF = (k: keyof Filters, v: string) => setDraft((d) => ({ ...d, [k]: v }));
  const apply = (e: Event) => { e.preventDefault(); setPage(1); setSelected(new Set()); setFilters(draft); };
  const toggle = (id: string) => setSelected((s) => { const n = new Set(s); if (n.has(id)) n.delete(id); else n.add(id); return n; });
  const done = () => { setEditing(undefined); setSelected(new Set()); changed(); };
  const deleteOne = async (r: any) => {
    if (!confirm(`Delete the ${r.type} record ${r.name}?`)) return;
    if (await rowAction.run(() => call('DELETE', `${base}/${r.id}`))) done();
  };
  const deleteSelected = async () => {
    if (!confirm(`Delete ${selected.size} records?`)) return;
    if (await rowAction.run(() => call('POST', `${base}/batch`, { deletes: [...selected].map((id) => ({ id })) }))) done();
  };
  const setProxied = async (r: any, proxied: boolean) => {
    if (await rowAction.run(() => call('PATCH', `${base}/${r.id}`, { proxied }))) changed();
  };
  return (
    <>
      <div class="toolbar">
        <button type="button" onClick={() => setEditing('new')}>Add record</button>
        <button type="button" class="danger" disabled={selected.size === 0 || rowAction.busy} onClick={deleteSelected}>Delete selected ({selected.size})</button>
        <ExportButton zone={zone} />
      </div>
      {editing ? <RecordForm key={editing === 'new' ? 'new' : editing.id} zone={zone} record={editing === 'new' ? undefined : editing} onDone={done} onCancel={() => setEditing(undefined)} /> : null}
      <form class="filters" role="search" aria-label="Filter records" onSubmit={apply}>
        <Field label="Type"><select value={draft.type} onChange={(e) => setF('type', e.currentTarget.value)}><option value="">any</option>{TYPES.map((t) => <option key={t}>{t}</option>)}</select></Field>
        <Field label="Name contains"><input name="filter-name" value={draft.name} onInput={(e) => setF('name', e.currentTarget.value)} /></Field>
        <Field label="Content contains"><input name="filter-content" value={draft.content} onInput={(e) => setF('content', e.currentTarget.value)} /></Field>
        <Field label="Proxied"><select value={draft.proxied} onChange={(e) => setF('proxied', e.currentTarget.value)}><option value="">any</option><option value="true">yes</option><option value="false">no</option></select></Field>
        <Field label="Tag (name or name:value)"><input name="filter-tag" value={draft.tag} onInput={(e) => setF('tag', e.currentTarget.value)} /></Field>
        <Field label="Comment contains"><input name="filter-comment" value={draft.comment} onInput={(e) => setF('comment', e.currentTarget.value)} /></Field>
        <Field label="Search"><input type="search" name="filter-search" value={draft.search} onInput={(e) => setF('search', e.currentTarget.value)} /></Field>
        <Field label="Match"><select value={draft.match} onChange={(e) => setF('match', e.currentTarget.value)}><option value="all">all filters</option><option value="any">any filter</option></select></Field>
        <button type="submit">Apply filters</button>
        <button type="button" class="secondary" onClick={() => { setDraft(NO_FILTERS); setFilters(NO_FILTERS); setPage(1); }}>Clear</button>
      </form>
      <div class="toolbar">
        <Field label="Sort by"><select value={order} onChange={(e) => setOrder(e.currentTarget.value)}>{['type', 'name', 'content', 'ttl', 'proxied'].map((o) => <option key={o}>{o}</option>)}</select></Field>
        <Field label="Direction"><select value={direction} onChange={(e) => setDirection(e.currentTarget.value)}><option value="asc">ascending</option><option value="desc">descending</option></select></Field>
        <Field label="Per page"><select value={perPage} onChange={(e) => { setPerPage(Number(e.currentTarget.value)); setPage(1); }}>{[20, 50, 100, 500].map((n) => <option key={n} value={n}>{n}</option>)}</select></Field>
      </div>
      <Errors error={rowAction.error} />
      <LoadState loading={list.loading} error={list.error} />
      <table class="records">
        <thead><tr><th scope="col"><span class="sr">Select</span></th><th scope="col">Type</th><th scope="col">Name</th><th scope="col">Content</th><th scope="col">Proxied</th><th scope="col">TTL</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
        <tbody>
          {records.map((r) => (
            <tr key={r.id}>
              <td><input type="checkbox" aria-label={`Select ${r.type} ${r.name}`} checked={selected.has(r.id)} onChange={() => toggle(r.id)} /></td>
              <td>{r.type}</td>
              <td>{r.name}</td>
              <td class="content">{r.priority !== undefined && ['MX', 'SRV', 'URI'].includes(r.type) ? `${r.priority} ` : ''}{r.content}{r.comment ? <div class="muted">{r.comment}</div> : null}{r.tags?.length ? <div class="muted">tags: {r.tags.join(', ')}</div> : null}</td>
              <td>{r.proxiable ? <input type="checkbox" aria-label={`Proxied ${r.type} ${r.name}`} checked={r.proxied} onChange={(e) => setProxied(r, e.currentTarget.checked)} /> : 'DNS only'}</td>
              <td>{r.ttl === 1 ? 'Auto' : r.ttl}</td>
              <td><button type="button" class="secondary" aria-label={`Edit ${r.type} ${r.name}`} onClick={() => setEditing(r)}>Edit</button> <button type="button" class="danger" aria-label={`Delete ${r.type} ${r.name}`} onClick={() => deleteOne(r)}>Delete</button></td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data && records.length === 0 ? <p>No records match.</p> : null}
      <Pager info={list.data?.result_info} page={page} onPage={setPage} />
      <ImportForm zone={zone} onImported={changed} />
      <DnsAnswer zone={zone} version={version} />
    </>
  );
}

/** The create or edit form of one record, with the fields of its type. */
function RecordForm({ zone, record, onDone, onCancel }: { zone: any; record: any | undefined; onDone: () => void; onCancel: () => void }) {
  const [type, setType] = useState<string>(record?.type ?? 'A');
  const [name, setName] = useState<string>(record?.name ?? '');
  const [content, setContent] = useState<string>(record?.content ?? '');
  const [priority, setPriority] = useState<string>(record?.priority !== undefined ? String(record.priority) : '10');
  const [data, setData] = useState<Record<string, string>>(() => Object.fromEntries(Object.entries(record?.data ?? {}).map(([k, v]) => [k, String(v)])));
  const [ttl, setTtl] = useState<string>(String(record?.ttl ?? 1));
  const [proxied, setProxied] = useState<boolean>(record?.proxied ?? false);
  const [comment, setComment] = useState<string>(record?.comment ?? '');
  const [tags, setTags] = useState<string>((record?.tags ?? []).join(', '));
  const save = useAction();
  const form = TYPE_FORMS[type]!;
  const submit = async (e: Event) => {
    e.preventDefault();
    const body = recordBody({ type, name, content, priority, data, ttl, proxied, comment, tags });
    const ok = await save.run(() => record ? call('PUT', `/zones/${zone.id}/dns_records/${record.id}`, body) : call('POST', `/zones/${zone.id}/dns_records`, body));
    if (ok) onDone();
  };
  return (
    <form class="card record-form" onSubmit={submit} aria-label={record ? 'Edit record' : 'Add record'}>
      <h2>{record ? `Edit ${record.type} record` : 'Add a record'}</h2>
      <div class="toolbar">
        <Field label="Type"><select name="type" value={type} disabled={!!record} onChange={(e) => setType(e.currentTarget.value)}>{TYPES.map((t) => <option key={t}>{t}</option>)}</select></Field>
        <Field label="Name" hint={`@ for ${zone.name}`}><input name="name" value={name} onInput={(e) => setName(e.currentTarget.value)} required /></Field>
        {form.priority ? <Field label="Priority"><input name="priority" type="number" min={0} max={65535} value={priority} onInput={(e) => setPriority(e.currentTarget.value)} /></Field> : null}
        {form.content ? <Field label={form.content}><input name="content" value={content} onInput={(e) => setContent(e.currentTarget.value)} required size={40} /></Field> : null}
        {form.data?.map((f) => (
          <Field key={`${type}-${f.key}`} label={f.label}>
            {f.number
              ? <input name={`data.${f.key}`} type="number" value={data[f.key] ?? ''} onInput={(e) => { const v = e.currentTarget.value; setData((d) => ({ ...d, [f.key]: v })); }} />
              : <input name={`data.${f.key}`} type="text" value={data[f.key] ?? ''} onInput={(e) => { const v = e.currentTarget.value; setData((d) => ({ ...d, [f.key]: v })); }} />}
          </Field>
        ))}
        <Field label="TTL" hint="1 = Auto"><input name="ttl" type="number" min={1} value={ttl} onInput={(e) => setTtl(e.currentTarget.value)} /></Field>
        {form.proxiable ? <label class="inline"><input type="checkbox" name="proxied" checked={proxied} onChange={(e) => setProxied(e.currentTarget.checked)} /> Proxied</label> : null}
      </div>
      <div class="toolbar">
        <Field label="Comment"><input name="comment" value={comment} onInput={(e) => setComment(e.currentTarget.value)} size={40} /></Field>
        <Field label="Tags (name:value, comma separated)"><input name="tags" value={tags} onInput={(e) => setTags(e.currentTarget.value)} size={30} /></Field>
      </div>
      {form.hint ? <p class="hint">{form.hint}</p> : null}
      <Errors error={save.error} />
      <div class="toolbar">
        <button type="submit" disabled={save.busy}>{record ? 'Save record' : 'Add record'}</button>
        <button type="button" class="secondary" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

function ImportForm({ zone, onImported }: { zone: any; onImported: () => void }) {
  const [file, setFile] = useState<File | undefined>(undefined);
  const [proxied, setProxied] = useState(false);
  const [result, setResult] = useState<any>(undefined);
  const action = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!file) return;
    setResult(undefined);
    const form = new FormData();
    form.append('file', file);
    form.append('proxied', String(proxied));
    if (await action.run(async () => setResult((await call('POST', `/zones/${zone.id}/dns_records/import`, form)).result))) onImported();
  };
  return (
    <form class="card" onSubmit={submit}>
      <h2>Import a zone file (BIND format)</h2>
      <div class="toolbar">
        <Field label="Zone file"><input type="file" name="zonefile" onChange={(e) => setFile(e.currentTarget.files?.[0])} /></Field>
        <label class="inline"><input type="checkbox" checked={proxied} onChange={(e) => setProxied(e.currentTarget.checked)} /> Proxy imported A, AAAA and CNAME records</label>
        <button type="submit" disabled={!file || action.busy}>{action.busy ? 'Importing…' : 'Import'}</button>
      </div>
      <Errors error={action.error} />
      {result ? <p class="ok" role="status">Imported {result.recs_added} of {result.total_records_parsed} records parsed.</p> : null}
    </form>
  );
}

function ExportButton({ zone }: { zone: any }) {
  const action = useAction();
  return (
    <>
      <button type="button" class="secondary" disabled={action.busy} onClick={() => action.run(async () => saveResponse(await send('GET', `/zones/${zone.id}/dns_records/export`), `${zone.name}.zone`))}>Export zone file</button>
      <Errors error={action.error} />
    </>
  );
}
