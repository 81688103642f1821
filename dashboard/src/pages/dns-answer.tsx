/**
 * "What DNS answers now" on a zone's records page: the live, authoritative answer of Stratus's own DNS server for a
 * name and type, asked through the public DNS-over-HTTPS endpoint's JSON form (`/dns-query`, no credential: it
 * is public data, like port 53), beside the records the v4 API holds for that name. Asked again whenever the
 * records page changes a record (`version`).
 */
import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { Errors, Field, useAction } from '../ui';

const TYPE_NAMES: Record<number, string> = {
  1: 'A', 2: 'NS', 5: 'CNAME', 6: 'SOA', 12: 'PTR', 13: 'HINFO', 15: 'MX', 16: 'TXT', 28: 'AAAA', 29: 'LOC', 33: 'SRV', 35: 'NAPTR',
  37: 'CERT', 43: 'DS', 44: 'SSHFP', 46: 'RRSIG', 47: 'NSEC', 48: 'DNSKEY', 52: 'TLSA', 53: 'SMIMEA', 61: 'OPENPGPKEY', 64: 'SVCB', 65: 'HTTPS',
  256: 'URI', 257: 'CAA',
};
const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];
const ASKABLE = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SOA', 'SRV', 'CAA', 'HTTPS', 'SVCB', 'PTR', 'DS', 'DNSKEY', 'TLSA', 'NAPTR', 'LOC', 'URI', 'SSHFP', 'CERT', 'SMIMEA', 'OPENPGPKEY', 'ANY'];

/** A type code as its mnemonic. */
const typeName = (code: number) => TYPE_NAMES[code] ?? `TYPE${code}`;

interface JsonRecord { name: string; type: number; TTL: number; data: string }
interface JsonAnswer { Status: number; TC: boolean; AD: boolean; Answer?: JsonRecord[]; Authority?: JsonRecord[] }
interface Asked { name: string; type: string; dnssec: boolean }

/** Asks the public DNS-over-HTTPS endpoint (JSON form), without the session's credential. */
async function ask(q: Asked): Promise<JsonAnswer> {
  const params = new URLSearchParams({ name: q.name, type: q.type, ...(q.dnssec ? { do: '1' } : {}) });
  const res = await fetch(`/dns-query?${params}`, { headers: { accept: 'application/dns-json' }, credentials: 'omit', cache: 'no-store' });
  const body = await res.json().catch(() => undefined);
  if (!res.ok) throw new Error(body?.error ?? `DNS-over-HTTPS answered ${res.status}`);
  return body as JsonAnswer;
}

function RecordRows({ caption, records }: { caption: string; records: JsonRecord[] }) {
  return (
    <table class="dns-answer">
      <caption>{caption}</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">TTL</th><th scope="col">Data</th></tr></thead>
      <tbody>{records.map((r, i) => <tr key={i}><td>{r.name}</td><td>{typeName(r.type)}</td><td>{r.TTL}</td><td class="content">{r.data}</td></tr>)}</tbody>
    </table>
  );
}

/** The panel: a question, the live answer and the API's records for the name. */
export function DnsAnswer({ zone, version }: { zone: any; version: number }) {
  const [name, setName] = useState<string>(zone.name);
  const [type, setType] = useState('A');
  const [dnssec, setDnssec] = useState(false);
  const [asked, setAsked] = useState<Asked | undefined>(undefined);
  const [answer, setAnswer] = useState<JsonAnswer | undefined>(undefined);
  const [records, setRecords] = useState<any[] | undefined>(undefined);
  const action = useAction();
  useEffect(() => {
    if (!asked) return;
    let live = true;
    void action.run(async () => {
      const fqdn = asked.name.replace(/\.$/, '');
      const [a, r] = await Promise.all([
        ask(asked),
        get<any[]>(`/zones/${zone.id}/dns_records`, { name: fqdn, ...(asked.type === 'ANY' ? {} : { type: asked.type }), per_page: 100 }),
      ]);
      if (live) { setAnswer(a); setRecords(r.result); }
    });
    return () => { live = false; };
  }, [asked, version]);
  const submit = (e: Event) => {
    e.preventDefault();
    const n = name.trim();
    // `@` is the apex; a name ending in a dot is absolute; a name already in the zone stays; others are relative to it.
    const full = n === '@' || n === '' ? zone.name : n.endsWith('.') ? n.slice(0, -1) : n === zone.name || n.endsWith(`.${zone.name}`) ? n : `${n}.${zone.name}`;
    setAsked({ name: full, type, dnssec });
  };
  return (
    <section class="card" aria-labelledby="dns-answer-title">
      <h2 id="dns-answer-title">What DNS answers now</h2>
      <p class="muted">Asked live from this server's DNS (DNS-over-HTTPS at <code>/dns-query</code>, public like port 53), beside the records the API holds for the name.</p>
      <form class="toolbar" onSubmit={submit} aria-label="Ask DNS">
        <Field label="Name to ask" hint={`@, a name in ${zone.name}, or any name ending in a dot`}><input name="dns-name" value={name} onInput={(e) => setName(e.currentTarget.value)} required size={32} /></Field>
        <Field label="Record type to ask"><select name="dns-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>{ASKABLE.map((t) => <option key={t}>{t}</option>)}</select></Field>
        <label class="inline"><input type="checkbox" checked={dnssec} onChange={(e) => setDnssec(e.currentTarget.checked)} /> With DNSSEC signatures (DO)</label>
        <button type="submit" disabled={action.busy}>Ask DNS</button>
      </form>
      <Errors error={action.error} />
      {asked && answer ? (
        <div class="dns-compare" aria-live="polite">
          <div>
            <h3>DNS answers</h3>
            <p role="status" class="dns-status">{asked.name} {asked.type}: <strong>{RCODES[answer.Status] ?? `rcode ${answer.Status}`}</strong>{answer.TC ? ' (truncated)' : ''}, {answer.Answer?.length ?? 0} in the answer</p>
            {answer.Answer?.length ? <RecordRows caption="Answer section" records={answer.Answer} /> : null}
            {answer.Authority?.length ? <RecordRows caption="Authority section" records={answer.Authority} /> : null}
          </div>
          <div>
            <h3>Records in the API</h3>
            {records?.length
              ? <ul class="api-records">{records.map((r) => <li key={r.id}>{r.type} {r.name} {r.priority !== undefined && ['MX', 'SRV', 'URI'].includes(r.type) ? `${r.priority} ` : ''}{r.content}{r.proxied ? ' (proxied: DNS answers with the edge\'s addresses)' : ''}</li>)}</ul>
              : <p>No record of this name and type in the API.</p>}
          </div>
        </div>
      ) : null}
    </section>
  );
}
