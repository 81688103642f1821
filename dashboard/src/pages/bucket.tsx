/**
 * One bucket: objects by prefix (folders from the `/` delimiter), upload with progress and cancel, download,
 * delete, metadata and storage class; the bucket's CORS rules, lifecycle rules and public domains as the API
 * returns them.
 */
import { useState } from 'preact/hooks';
import { call, get, send, saveResponse, upload } from '../api';
import { href } from '../router';
import { bytes, Errors, Field, LoadState, useAction, useLoad } from '../ui';
import { loadSession } from '../session';
import { dashboardCorsRule, PART_SIZE, s3Target, uploadInParts } from '../s3';
import { CustomMetadataFields, HttpMetadataFields, httpHeaders, metadataHeader, readMetadata, type HttpMetadata, type MetadataPair } from './upload-metadata';

const keyPath = (key: string) => key.split('/').map(encodeURIComponent).join('/');

/** The bucket page. */
export function BucketPage({ account, bucket }: { account: string; bucket: string }) {
  const base = `/accounts/${account}/r2/buckets/${encodeURIComponent(bucket)}`;
  const [prefix, setPrefix] = useState('');
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const list = useLoad(() => get<any[]>(`${base}/objects`, { prefix, delimiter: '/', cursor, per_page: 100 }), [bucket, prefix, cursor]);
  const [selected, setSelected] = useState<any | undefined>(undefined);
  const action = useAction();
  const open = (p: string) => { setPrefix(p); setCursor(undefined); setSelected(undefined); };
  const crumbs = prefix.split('/').filter(Boolean);
  const info = list.data?.result_info;
  const download = (o: any) => action.run(async () => saveResponse(await send('GET', `${base}/objects/${keyPath(o.key)}`), o.key.split('/').pop() || 'object'));
  const del = async (o: any) => {
    if (confirm(`Delete ${o.key}?`) && await action.run(() => call('DELETE', `${base}/objects/${keyPath(o.key)}`))) { setSelected(undefined); list.reload(); }
  };
  return (
    <>
      <p><a href={href('buckets')}>All buckets</a></p>
      <h1>{bucket}</h1>
      <nav aria-label="Folder" class="toolbar">
        <button type="button" class="secondary" onClick={() => open('')}>{bucket}</button>
        {crumbs.map((c, i) => <button key={i} type="button" class="secondary" onClick={() => open(`${crumbs.slice(0, i + 1).join('/')}/`)}>{c}/</button>)}
      </nav>
      <Upload base={base} account={account} bucket={bucket} prefix={prefix} onUploaded={() => list.reload()} />
      <Errors error={action.error} />
      <LoadState loading={list.loading} error={list.error} />
      {list.data ? (
        <table class="objects">
          <thead><tr><th scope="col">Key</th><th scope="col">Size</th><th scope="col">Type</th><th scope="col">Storage class</th><th scope="col">Uploaded</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
          <tbody>
            {(info?.delimited ?? []).map((p: string) => (p.endsWith('/') ? p : `${p}/`)).map((p: string) => (
              <tr key={`p:${p}`}><td><button type="button" class="secondary" onClick={() => open(p)}>{p.slice(prefix.length)}</button></td><td>folder</td><td /><td /><td /><td /></tr>
            ))}
            {list.data.result.map((o) => (
              <tr key={o.key}>
                <td><button type="button" class="link secondary" aria-label={`Details of ${o.key}`} onClick={() => setSelected(o)}>{o.key.slice(prefix.length)}</button></td>
                <td>{bytes(o.size)}</td><td>{o.http_metadata?.contentType ?? ''}</td><td>{o.storage_class}</td><td>{o.uploaded}</td>
                <td><button type="button" class="secondary" aria-label={`Download ${o.key}`} onClick={() => download(o)}>Download</button> <button type="button" class="danger" aria-label={`Delete ${o.key}`} onClick={() => del(o)}>Delete</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {list.data && list.data.result.length === 0 && !(info?.delimited ?? []).length ? <p>No objects here.</p> : null}
      <div class="toolbar">
        {cursor ? <button type="button" class="secondary" onClick={() => setCursor(undefined)}>First page</button> : null}
        {info?.is_truncated ? <button type="button" class="secondary" onClick={() => setCursor(info.cursor)}>Next page</button> : null}
      </div>
      {selected ? (
        <section class="card" aria-label="Object details">
          <h2>{selected.key}</h2>
          <dl class="grid">
            <div><dt>Size</dt><dd>{selected.size} bytes</dd></div>
            <div><dt>ETag</dt><dd><code>{selected.etag}</code></dd></div>
            <div><dt>Storage class</dt><dd>{selected.storage_class}</dd></div>
            {Object.entries(selected.http_metadata ?? {}).map(([k, v]) => <div key={k}><dt>{k}</dt><dd>{String(v)}</dd></div>)}
            {Object.entries(selected.custom_metadata ?? {}).map(([k, v]) => <div key={`c:${k}`}><dt>custom: {k}</dt><dd>{String(v)}</dd></div>)}
          </dl>
        </section>
      ) : null}
      <BucketSettings base={base} />
    </>
  );
}

function Upload({ base, account, bucket, prefix, onUploaded }: { base: string; account: string; bucket: string; prefix: string; onUploaded: () => void }) {
  const target = useLoad(async () => { const s = loadSession(); return s ? s3Target(s.credential, account) : undefined; }, [account]);
  const [inParts, setInParts] = useState(true);
  const [file, setFile] = useState<File | undefined>(undefined);
  const [key, setKey] = useState('');
  const [storageClass, setStorageClass] = useState('');
  const [metadata, setMetadata] = useState<MetadataPair[]>([]);
  const [http, setHttp] = useState<HttpMetadata>({});
  const [progress, setProgress] = useState<{ sent: number; total: number } | undefined>(undefined);
  const [cancel, setCancel] = useState<(() => void) | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const action = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!file) return;
    const objectKey = prefix + (key.trim() || file.name);
    setDone(undefined);
    const parts3 = !!(target.data && inParts);
    let customMetadata: Record<string, string>;
    try {
      customMetadata = readMetadata(metadata, parts3);
    } catch (err) {
      await action.run(() => Promise.reject(err));
      return;
    }
    const contentType = file.type || 'application/octet-stream';
    const onProgress = (sent: number, total: number) => setProgress({ sent, total });
    let job: { done: Promise<unknown>; cancel: () => void };
    let parts = 0;
    if (target.data && parts3) {
      const multi = uploadInParts(target.data, bucket, objectKey, file, { contentType, customMetadata, httpHeaders: httpHeaders(http), ...(storageClass ? { storageClass } : {}) }, onProgress);
      job = { done: multi.done.then((r) => { parts = r.parts; }), cancel: multi.cancel };
    } else {
      const headers: Record<string, string> = { ...httpHeaders(http), 'content-type': contentType };
      if (storageClass) headers['cf-r2-storage-class'] = storageClass;
      if (Object.keys(customMetadata).length) headers['cf-r2-custom-metadata'] = metadataHeader(customMetadata);
      job = upload('PUT', `${base}/objects/${keyPath(objectKey)}`, file, headers, onProgress);
    }
    setCancel(() => job.cancel);
    const ok = await action.run(() => job.done);
    setCancel(undefined);
    setProgress(undefined);
    if (ok) { setMetadata([]); setHttp({}); setDone(parts ? `${objectKey} in ${parts} parts over the S3 API` : objectKey); onUploaded(); }
  };
  return (
    <form class="card" onSubmit={submit}>
      <h2>Upload an object{prefix ? ` into ${prefix}` : ''}</h2>
      <div class="toolbar">
        <Field label="File"><input type="file" name="upload-file" onChange={(e) => setFile(e.currentTarget.files?.[0])} /></Field>
        <Field label="Key (default: the file's name)"><input name="upload-key" value={key} onInput={(e) => setKey(e.currentTarget.value)} /></Field>
        <Field label="Storage class"><select value={storageClass} onChange={(e) => setStorageClass(e.currentTarget.value)}><option value="">bucket default</option><option>Standard</option><option>InfrequentAccess</option></select></Field>
        {target.data ? <label class="inline"><input type="checkbox" checked={inParts} onChange={(e) => setInParts(e.currentTarget.checked)} /> In parts over the S3 API ({PART_SIZE / 1024 / 1024} MB each)</label> : null}
        <button type="submit" disabled={!file || !!cancel}>Upload</button>
        {cancel ? <button type="button" class="danger" onClick={cancel}>Cancel upload</button> : null}
      </div>
      <HttpMetadataFields value={http} onChange={setHttp} />
      <CustomMetadataFields pairs={metadata} onChange={setMetadata} />
      {progress ? <p><progress aria-label="Upload progress" max={progress.total} value={progress.sent} /> {bytes(progress.sent)} of {bytes(progress.total)}</p> : null}
      <Errors error={action.error} />
      {done ? <p class="ok" role="status">Uploaded {done}.</p> : null}
      <p class="hint">{target.data
        ? 'Uploads in parts go to the S3 API with your token\'s key pair; the bucket needs a CORS rule for this page (see CORS rules below).'
        : 'One request through the v4 API (up to its body limit). Sign in with an API token for uploads in parts over the S3 API.'}</p>
    </form>
  );
}

function BucketSettings({ base }: { base: string }) {
  const [corsTick, setCorsTick] = useState(0);
  return (
    <>
      <JsonSetting key={`cors-${corsTick}`} title="CORS rules" path={`${base}/cors`} example={'{"rules":[{"allowed":{"origins":["https://example.com"],"methods":["GET"]}}]}'} />
      <AllowPartsButton path={`${base}/cors`} onDone={() => setCorsTick((t) => t + 1)} />
      <JsonSetting title="Lifecycle rules" path={`${base}/lifecycle`} example={'{"rules":[{"id":"expire-logs","enabled":true,"conditions":{"prefix":"logs/"},"deleteObjectsTransition":{"condition":{"type":"Age","maxAge":2592000}}}]}'} />
      <ManagedDomain path={`${base}/domains/managed`} />
      <CustomDomains path={`${base}/domains/custom`} />
    </>
  );
}

/** A bucket setting as the API's JSON: shown, edited and sent back with PUT (the API checks it). */
function JsonSetting({ title, path, example }: { title: string; path: string; example: string }) {
  const state = useLoad(() => get<any>(path).then((r) => r.result, (e) => { if (e?.status === 404) return null; throw e; }), [path]);
  const [text, setText] = useState<string | undefined>(undefined);
  const save = useAction();
  const [saved, setSaved] = useState(false);
  const shown = text ?? (state.data ? JSON.stringify(state.data, null, 2) : '');
  const submit = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    if (await save.run(async () => call('PUT', path, JSON.parse(shown || example)))) { setText(undefined); setSaved(true); state.reload(); }
  };
  return (
    <section>
      <h2>{title}</h2>
      <LoadState loading={state.loading} error={state.error} />
      {(
        <form onSubmit={submit}>
          <Field label={`${title} (JSON, as the API takes it)`} hint={`For example: ${example}`}>
            <textarea rows={6} cols={80} value={shown} onInput={(e) => { setSaved(false); setText(e.currentTarget.value); }} />
          </Field>
          <Errors error={save.error} />
          {saved ? <p class="ok" role="status">Saved.</p> : null}
          <button type="submit" class="secondary" disabled={save.busy || text === undefined}>Save {title.toLowerCase()}</button>
        </form>
      )}
    </section>
  );
}

/** The bucket's public r2.dev-style domain: on or off. */
function ManagedDomain({ path }: { path: string }) {
  const state = useLoad(() => get<any>(path), [path]);
  const change = useAction();
  const d = state.data?.result;
  return (
    <section>
      <h2>Public domain</h2>
      <LoadState loading={state.loading} error={state.error} />
      {d ? (
        <label class="inline"><input type="checkbox" checked={!!d.enabled} disabled={change.busy}
          onChange={async (e) => { const enabled = e.currentTarget.checked; if (await change.run(() => call('PUT', path, { enabled }))) state.reload(); }} />
          Public access at <code>{d.domain}</code></label>
      ) : null}
      <Errors error={change.error} />
    </section>
  );
}

/** Adds the CORS rule that lets this page upload in parts (kept beside the bucket's other rules). */
function AllowPartsButton({ path, onDone }: { path: string; onDone: () => void }) {
  const action = useAction();
  const allow = () => action.run(async () => {
    const current: any[] = await get<any>(path).then((r) => r.result?.rules ?? [], (e) => { if (e?.status === 404) return []; throw e; });
    const rules = [...current.filter((r) => r.id !== 'stratus-dashboard'), dashboardCorsRule()];
    await call('PUT', path, { rules });
    onDone();
  });
  return (
    <>
      <button type="button" class="secondary" disabled={action.busy} onClick={allow}>Allow this page to upload in parts (adds a CORS rule)</button>
      <Errors error={action.error} />
    </>
  );
}

/** The bucket's custom domains: list, add (a hostname in one of the account's zones), delete. */
function CustomDomains({ path }: { path: string }) {
  const list = useLoad(() => get<any>(path), [path]);
  const zones = useLoad(() => get<any[]>('/zones', { per_page: 50 }), []);
  const [domain, setDomain] = useState('');
  const [zoneId, setZoneId] = useState('');
  const add = useAction();
  const remove = useAction();
  const domainsOf = (list.data?.result?.domains ?? []) as any[];
  const submit = async (e: Event) => {
    e.preventDefault();
    if (await add.run(() => call('POST', path, { domain: domain.trim(), zoneId, enabled: true }))) { setDomain(''); list.reload(); }
  };
  return (
    <section>
      <h2>Custom domains</h2>
      <LoadState loading={list.loading} error={list.error} />
      {list.data ? (domainsOf.length === 0 ? <p>None.</p> : (
        <table>
          <thead><tr><th scope="col">Domain</th><th scope="col">Zone</th><th scope="col">Enabled</th><th scope="col">Status</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
          <tbody>{domainsOf.map((d) => (
            <tr key={d.domain}>
              <td>{d.domain}</td><td>{d.zoneName ?? d.zoneId}</td><td>{d.enabled ? 'yes' : 'no'}</td><td>{d.status?.ownership ?? ''}</td>
              <td><button type="button" class="danger" aria-label={`Remove ${d.domain}`}
                onClick={async () => { if (confirm(`Remove ${d.domain}?`) && await remove.run(() => call('DELETE', `${path}/${encodeURIComponent(d.domain)}`))) list.reload(); }}>Remove</button></td>
            </tr>
          ))}</tbody>
        </table>
      )) : null}
      <Errors error={remove.error} />
      <form class="toolbar" onSubmit={submit}>
        <Field label="Custom domain"><input name="custom-domain" required value={domain} onInput={(e) => setDomain(e.currentTarget.value)} /></Field>
        <Field label="In zone">
          <select value={zoneId} required onChange={(e) => setZoneId(e.currentTarget.value)}>
            <option value="">choose a zone</option>
            {(zones.data?.result ?? []).map((z) => <option key={z.id} value={z.id}>{z.name}</option>)}
          </select>
        </Field>
        <button type="submit" class="secondary" disabled={add.busy}>Add custom domain</button>
      </form>
      <Errors error={add.error} />
    </section>
  );
}
