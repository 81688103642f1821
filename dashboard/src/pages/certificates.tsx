/**
 * A zone's certificates as production's API shapes them: certificate packs (hosts, status, expiry), universal
 * SSL on/off and custom certificates (list, upload, delete). Where the API answers 404 (no such routes on this
 * server), the page says the API is not available instead.
 */
import { useState } from 'preact/hooks';
import { ApiError, call, get } from '../api';
import { Errors, Field, LoadState, useAction, useLoad } from '../ui';

const notAvailable = (e: unknown) => e instanceof ApiError && e.status === 404;

/** The SSL/TLS tab of a zone. */
export function CertificatesTab({ zoneId }: { zoneId: string }) {
  const packs = useLoad(() => get<any[]>(`/zones/${zoneId}/ssl/certificate_packs`, { status: 'all' }), [zoneId]);
  if (notAvailable(packs.error)) return <p class="not-available" role="status">Certificates are not available: this server's API has no certificate routes.</p>;
  return (
    <>
      <h2>Certificate packs</h2>
      <LoadState loading={packs.loading} error={packs.error} />
      {packs.data ? (packs.data.result.length === 0 ? <p>No certificate packs.</p> : (
        <table>
          <thead><tr><th scope="col">Type</th><th scope="col">Hosts</th><th scope="col">Status</th><th scope="col">Authority</th><th scope="col">Expires</th></tr></thead>
          <tbody>{packs.data.result.map((p) => (
            <tr key={p.id}>
              <td>{p.type}</td><td>{(p.hosts ?? []).join(', ')}</td><td>{p.status}</td><td>{p.certificate_authority ?? ''}</td>
              <td>{(p.certificates ?? []).map((c: any) => c.expires_on).filter(Boolean).join(', ')}</td>
            </tr>
          ))}</tbody>
        </table>
      )) : null}
      <Universal zoneId={zoneId} />
      <Custom zoneId={zoneId} />
    </>
  );
}

function Universal({ zoneId }: { zoneId: string }) {
  const settings = useLoad(() => get<any>(`/zones/${zoneId}/ssl/universal/settings`), [zoneId]);
  const change = useAction();
  if (notAvailable(settings.error)) return null;
  const enabled = settings.data?.result?.enabled;
  return (
    <section>
      <h2>Universal SSL</h2>
      <LoadState loading={settings.loading} error={settings.error} />
      {enabled !== undefined ? (
        <label class="inline"><input type="checkbox" checked={enabled} disabled={change.busy}
          onChange={async (e) => { const on = e.currentTarget.checked; if (await change.run(() => call('PATCH', `/zones/${zoneId}/ssl/universal/settings`, { enabled: on }))) settings.reload(); }} /> Universal SSL on</label>
      ) : null}
      <Errors error={change.error} />
    </section>
  );
}

function Custom({ zoneId }: { zoneId: string }) {
  const list = useLoad(() => get<any[]>(`/zones/${zoneId}/custom_certificates`), [zoneId]);
  const [certificate, setCertificate] = useState('');
  const [key, setKey] = useState('');
  const upload = useAction();
  const remove = useAction();
  if (notAvailable(list.error)) return null;
  const submit = async (e: Event) => {
    e.preventDefault();
    if (await upload.run(() => call('POST', `/zones/${zoneId}/custom_certificates`, { certificate, private_key: key, bundle_method: 'ubiquitous' }))) {
      setCertificate(''); setKey(''); list.reload();
    }
  };
  return (
    <section>
      <h2>Custom certificates</h2>
      <LoadState loading={list.loading} error={list.error} />
      {list.data?.result.length ? (
        <table>
          <thead><tr><th scope="col">Hosts</th><th scope="col">Issuer</th><th scope="col">Status</th><th scope="col">Expires</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
          <tbody>{list.data.result.map((c) => (
            <tr key={c.id}>
              <td>{(c.hosts ?? []).join(', ')}</td><td>{c.issuer}</td><td>{c.status}</td><td>{c.expires_on}</td>
              <td><button type="button" class="danger" aria-label={`Delete certificate for ${(c.hosts ?? []).join(', ')}`}
                onClick={async () => { if (confirm('Delete this certificate?') && await remove.run(() => call('DELETE', `/zones/${zoneId}/custom_certificates/${c.id}`))) list.reload(); }}>Delete</button></td>
            </tr>
          ))}</tbody>
        </table>
      ) : list.data ? <p>No custom certificates.</p> : null}
      <Errors error={remove.error} />
      <form class="card" onSubmit={submit}>
        <h2>Upload a custom certificate</h2>
        <Field label="Certificate chain (PEM)"><textarea rows={5} cols={70} value={certificate} onInput={(e) => setCertificate(e.currentTarget.value)} required /></Field>
        <Field label="Private key (PEM)"><textarea rows={5} cols={70} value={key} onInput={(e) => setKey(e.currentTarget.value)} required /></Field>
        <Errors error={upload.error} />
        <button type="submit" disabled={upload.busy}>Upload certificate</button>
      </form>
    </section>
  );
}
