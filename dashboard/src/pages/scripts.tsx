/**
 * Edge scripts of the account: list, the workers subdomain, and per script its versions, deployments, routes
 * per zone and secrets (names only: the API never returns values). The dashboard deploys nothing.
 */
import { useState } from 'preact/hooks';
import { get } from '../api';
import { href } from '../router';
import { Field, LoadState, useLoad } from '../ui';

/** The scripts page. */
export function ScriptsPage({ account }: { account: string }) {
  const scripts = useLoad(() => get<any[]>(`/accounts/${account}/workers/scripts`), [account]);
  const subdomain = useLoad(() => get<any>(`/accounts/${account}/workers/subdomain`), [account]);
  return (
    <>
      <h1>Scripts</h1>
      <p>Workers subdomain: {subdomain.data ? <code>{subdomain.data.result?.subdomain ?? 'none'}</code> : subdomain.error ? 'not set' : '…'}</p>
      <LoadState loading={scripts.loading} error={scripts.error} />
      {scripts.data ? (scripts.data.result.length === 0 ? <p>No scripts. Upload one with wrangler or the API.</p> : (
        <table>
          <thead><tr><th scope="col">Script</th><th scope="col">Created</th><th scope="col">Modified</th></tr></thead>
          <tbody>{scripts.data.result.map((s) => (
            <tr key={s.id}><td><a href={href('scripts', s.id)}>{s.id}</a></td><td>{s.created_on}</td><td>{s.modified_on}</td></tr>
          ))}</tbody>
        </table>
      )) : null}
      <ZoneRoutes />
    </>
  );
}

/** One script. */
export function ScriptPage({ account, script }: { account: string; script: string }) {
  const base = `/accounts/${account}/workers/scripts/${encodeURIComponent(script)}`;
  const versions = useLoad(() => get<any>(`${base}/versions`), [base]);
  const deployments = useLoad(() => get<any>(`${base}/deployments`), [base]);
  const secrets = useLoad(() => get<any[]>(`${base}/secrets`), [base]);
  const sub = useLoad(() => get<any>(`${base}/subdomain`), [base]);
  return (
    <>
      <p><a href={href('scripts')}>All scripts</a></p>
      <h1>{script}</h1>
      <p>On the workers subdomain: {sub.data ? (sub.data.result?.enabled ? 'yes' : 'no') : '…'}</p>
      <h2>Deployments</h2>
      <LoadState loading={deployments.loading} error={deployments.error} />
      {deployments.data ? (
        <table>
          <thead><tr><th scope="col">Deployment</th><th scope="col">Created</th><th scope="col">Source</th><th scope="col">Versions</th></tr></thead>
          <tbody>{(deployments.data.result?.deployments ?? []).map((d: any) => (
            <tr key={d.id}><td><code>{d.id}</code></td><td>{d.created_on}</td><td>{d.source}</td>
              <td>{(d.versions ?? []).map((v: any) => `${v.version_id} (${v.percentage}%)`).join(', ')}</td></tr>
          ))}</tbody>
        </table>
      ) : null}
      <h2>Versions</h2>
      <LoadState loading={versions.loading} error={versions.error} />
      {versions.data ? (
        <table>
          <thead><tr><th scope="col">Number</th><th scope="col">Version</th><th scope="col">Created</th><th scope="col">Source</th></tr></thead>
          <tbody>{(versions.data.result?.items ?? []).map((v: any) => (
            <tr key={v.id}><td>{v.number}</td><td><code>{v.id}</code></td><td>{v.metadata?.created_on}</td><td>{v.metadata?.source}</td></tr>
          ))}</tbody>
        </table>
      ) : null}
      <h2>Secrets</h2>
      <LoadState loading={secrets.loading} error={secrets.error} />
      {secrets.data ? (secrets.data.result.length === 0 ? <p>No secrets.</p> : <ul>{secrets.data.result.map((s) => <li key={s.name}><code>{s.name}</code> ({s.type})</li>)}</ul>) : null}
    </>
  );
}

/** The routes of a chosen zone. */
function ZoneRoutes() {
  const zones = useLoad(() => get<any[]>('/zones', { per_page: 50 }), []);
  const [zoneId, setZoneId] = useState('');
  const routes = useLoad(() => (zoneId ? get<any[]>(`/zones/${zoneId}/workers/routes`) : Promise.resolve(undefined)), [zoneId]);
  return (
    <section>
      <h2>Routes per zone</h2>
      <Field label="Zone">
        <select value={zoneId} onChange={(e) => setZoneId(e.currentTarget.value)}>
          <option value="">choose a zone</option>
          {(zones.data?.result ?? []).map((z) => <option key={z.id} value={z.id}>{z.name}</option>)}
        </select>
      </Field>
      <LoadState loading={!!zoneId && routes.loading} error={routes.error} />
      {routes.data ? (routes.data.result.length === 0 ? <p>No routes in this zone.</p> : (
        <table>
          <thead><tr><th scope="col">Pattern</th><th scope="col">Script</th></tr></thead>
          <tbody>{routes.data.result.map((r) => <tr key={r.id}><td><code>{r.pattern}</code></td><td>{r.script ?? '(none)'}</td></tr>)}</tbody>
        </table>
      )) : null}
    </section>
  );
}
