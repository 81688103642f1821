/** One zone: overview (status, name servers to set at the registrar), DNS records, DNS settings, DNSSEC, SSL/TLS. */
import { useState } from 'preact/hooks';
import { call, get } from '../api';
import { href } from '../router';
import { Errors, Field, LoadState, useAction, useLoad } from '../ui';
import { RecordsTab } from './records';
import { CertificatesTab } from './certificates';
import { ZoneSettingsTab } from './zone-settings';

const TABS: [string, string][] = [['overview', 'Overview'], ['dns', 'DNS records'], ['settings', 'DNS settings'], ['dnssec', 'DNSSEC'], ['ssl', 'SSL/TLS'], ['zone-settings', 'Zone settings']];

/** The zone page and its tabs. */
export function ZonePage({ zoneId, tab }: { zoneId: string; tab: string }) {
  const zone = useLoad(() => get<any>(`/zones/${zoneId}`), [zoneId]);
  const z = zone.data?.result;
  return (
    <>
      <p><a href={href('zones')}>All zones</a></p>
      <h1>{z ? z.name : 'Zone'}</h1>
      <nav class="tabs" aria-label="Zone">
        {TABS.map(([id, label]) => <a key={id} href={href('zones', zoneId, id)} aria-current={tab === id ? 'page' : undefined}>{label}</a>)}
      </nav>
      <LoadState loading={zone.loading} error={zone.error} />
      {z ? (
        tab === 'dns' ? <RecordsTab zone={z} />
          : tab === 'settings' ? <DnsSettings zoneId={zoneId} />
            : tab === 'dnssec' ? <Dnssec zoneId={zoneId} />
              : tab === 'ssl' ? <CertificatesTab zoneId={zoneId} />
                : tab === 'zone-settings' ? <ZoneSettingsTab zoneId={zoneId} />
                  : <Overview zone={z} />
      ) : null}
    </>
  );
}

function Overview({ zone }: { zone: any }) {
  return (
    <section>
      <dl class="grid">
        <div><dt>Status</dt><dd>{zone.status}</dd></div>
        <div><dt>Type</dt><dd>{zone.type}</dd></div>
        <div><dt>Account</dt><dd>{zone.account?.name}</dd></div>
        <div><dt>Created</dt><dd>{zone.created_on}</dd></div>
        <div><dt>Activated</dt><dd>{zone.activated_on ?? 'not yet'}</dd></div>
        <div><dt>Zone id</dt><dd><code>{zone.id}</code></dd></div>
      </dl>
      <h2>Name servers to set at the registrar</h2>
      <ul class="nameservers">{(zone.name_servers ?? []).map((ns: string) => <li key={ns}><code>{ns}</code></li>)}</ul>
      {zone.original_name_servers?.length ? <p class="muted">Before: {zone.original_name_servers.join(', ')}</p> : null}
      <Hold zoneId={zone.id} />
    </section>
  );
}

/** The zone's DNS settings: booleans and numbers at the top and in `soa`, edited and sent with PATCH. */
function DnsSettings({ zoneId }: { zoneId: string }) {
  const settings = useLoad(() => get<any>(`/zones/${zoneId}/dns_settings`), [zoneId]);
  const [changes, setChanges] = useState<Record<string, any>>({});
  const save = useAction();
  const [saved, setSaved] = useState(false);
  const s = settings.data?.result;
  const set = (key: string, value: unknown, inSoa = false) => {
    setSaved(false);
    setChanges((c) => inSoa ? { ...c, soa: { ...(c.soa ?? {}), [key]: value } } : { ...c, [key]: value });
  };
  const control = (key: string, value: unknown, inSoa = false) => {
    const label = inSoa ? `SOA ${key}` : key.replace(/_/g, ' ');
    if (typeof value === 'boolean') return <label class="inline" key={key}><input type="checkbox" checked={(inSoa ? changes.soa?.[key] : changes[key]) ?? value} onChange={(e) => set(key, e.currentTarget.checked, inSoa)} /> {label}</label>;
    if (typeof value === 'number') return <Field key={key} label={label}><input type="number" value={(inSoa ? changes.soa?.[key] : changes[key]) ?? value} onInput={(e) => set(key, Number(e.currentTarget.value), inSoa)} /></Field>;
    if (typeof value === 'string' && inSoa) return <Field key={key} label={label}><input value={changes.soa?.[key] ?? value} onInput={(e) => set(key, e.currentTarget.value, true)} /></Field>;
    return null;
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    if (await save.run(() => call('PATCH', `/zones/${zoneId}/dns_settings`, changes))) { setChanges({}); setSaved(true); settings.reload(); }
  };
  return (
    <>
      <LoadState loading={settings.loading} error={settings.error} />
      {s ? (
        <form class="card" onSubmit={submit}>
          <div class="grid">{Object.entries(s).map(([k, v]) => control(k, v))}</div>
          {s.soa ? <fieldset><legend>SOA</legend><div class="grid">{Object.entries(s.soa).map(([k, v]) => control(k, v, true))}</div></fieldset> : null}
          {s.nameservers ? <p class="muted">Name servers: {JSON.stringify(s.nameservers)}</p> : null}
          <Errors error={save.error} />
          {saved ? <p class="ok" role="status">Saved.</p> : null}
          <button type="submit" disabled={save.busy || Object.keys(changes).length === 0}>Save DNS settings</button>
        </form>
      ) : null}
    </>
  );
}

function Dnssec({ zoneId }: { zoneId: string }) {
  const state = useLoad(() => get<any>(`/zones/${zoneId}/dnssec`), [zoneId]);
  const change = useAction();
  const d = state.data?.result;
  const setStatus = async (status: 'active' | 'disabled') => {
    if (status === 'disabled' && !confirm('Turn DNSSEC off? Remove the DS record at the registrar first.')) return;
    if (await change.run(() => call('PATCH', `/zones/${zoneId}/dnssec`, { status }))) state.reload();
  };
  return (
    <section>
      <LoadState loading={state.loading} error={state.error} />
      {d ? (
        <>
          <p>DNSSEC status: <strong>{d.status}</strong></p>
          {d.status === 'disabled' || d.status === 'pending-disabled'
            ? <button type="button" onClick={() => setStatus('active')} disabled={change.busy}>Turn DNSSEC on</button>
            : <button type="button" class="danger" onClick={() => setStatus('disabled')} disabled={change.busy}>Turn DNSSEC off</button>}
          <Errors error={change.error} />
          {d.ds ? (
            <>
              <h2>DS record for the parent zone (give it to the registrar)</h2>
              <pre class="ds">{d.ds}</pre>
              <dl class="grid">
                <div><dt>Key tag</dt><dd>{d.key_tag}</dd></div>
                <div><dt>Algorithm</dt><dd>{d.algorithm}</dd></div>
                <div><dt>Digest type</dt><dd>{d.digest_type} ({d.digest_algorithm})</dd></div>
                <div><dt>Digest</dt><dd><code>{d.digest}</code></dd></div>
                <div><dt>Public key</dt><dd><code>{d.public_key}</code></dd></div>
              </dl>
            </>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

/** The zone hold: while on, nobody else may add this zone or one below it. */
function Hold({ zoneId }: { zoneId: string }) {
  const hold = useLoad(() => get<any>(`/zones/${zoneId}/hold`), [zoneId]);
  const change = useAction();
  const h = hold.data?.result;
  const toggle = async () => {
    if (await change.run(() => (h?.hold ? call('DELETE', `/zones/${zoneId}/hold`) : call('POST', `/zones/${zoneId}/hold`, undefined, { include_subdomains: true })))) hold.reload();
  };
  return (
    <>
      <h2>Zone hold</h2>
      <LoadState loading={hold.loading} error={hold.error} />
      {h ? (
        <p>
          {h.hold ? `On${h.include_subdomains ? ', subdomains included' : ''}${h.hold_after ? ` until ${h.hold_after}` : ''}.` : 'Off: others may add subdomains of this zone as zones of their own.'}{' '}
          <button type="button" class="secondary" disabled={change.busy} onClick={toggle}>{h.hold ? 'Release the hold' : 'Hold the zone'}</button>
        </p>
      ) : null}
      <Errors error={change.error} />
    </>
  );
}
