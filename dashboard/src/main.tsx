/** The dashboard's entry: sign-in, then the pages by hash route. */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import './style.css';
import { call, useCredential } from './api';
import { clearSession, loadSession, saveSession, type Credential, type Session } from './session';
import { href, useRoute } from './router';
import { Errors, Field, useAction } from './ui';
import { ZonesPage } from './pages/zones';
import { ZonePage } from './pages/zone';
import { BucketsPage } from './pages/buckets';
import { BucketPage } from './pages/bucket';
import { ScriptsPage, ScriptPage } from './pages/scripts';
import { TokensPage } from './pages/tokens';
import { AccountPicker } from './account-picker';

function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [kind, setKind] = useState<'token' | 'key'>('token');
  const [token, setToken] = useState('');
  const [email, setEmail] = useState('');
  const [key, setKey] = useState('');
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    const credential: Credential = kind === 'token' ? { kind, token: token.trim() } : { kind, email: email.trim(), key: key.trim() };
    void action.run(async () => {
      // The accounts the credential reaches: a wrong credential gets the API's refusal here (user and account tokens alike).
      const accounts = await call<any[]>('GET', '/accounts', undefined, undefined, credential);
      const first = accounts.result[0];
      if (!first) throw new Error('This credential reaches no account.');
      onSignedIn({ credential, accountId: first.id, accountName: first.name });
    });
  };
  return (
    <main class="signin">
      <h1>Sign in to Stratus</h1>
      <form onSubmit={submit} aria-describedby="signin-errors">
        <fieldset>
          <legend>Credential</legend>
          <label class="inline"><input type="radio" name="kind" checked={kind === 'token'} onChange={() => setKind('token')} /> With an API token</label>
          <label class="inline"><input type="radio" name="kind" checked={kind === 'key'} onChange={() => setKind('key')} /> With an e-mail and global API key</label>
        </fieldset>
        {kind === 'token'
          ? <Field label="API token"><input type="password" name="token" autocomplete="off" required value={token} onInput={(e) => setToken(e.currentTarget.value)} /></Field>
          : <>
              <Field label="E-mail"><input type="email" name="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} /></Field>
              <Field label="Global API key"><input type="password" name="key" autocomplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} /></Field>
            </>}
        <Errors error={action.error} id="signin-errors" />
        <button type="submit" disabled={action.busy}>Sign in</button>
        <p class="muted">The credential is kept only in this tab (session storage) and sent only to this server's API.</p>
      </form>
    </main>
  );
}

function Pages({ session }: { session: Session }) {
  const route = useRoute();
  const [section, a, b] = route;
  const account = session.accountId;
  if (section === 'zones' && a) return <ZonePage zoneId={a} tab={b ?? 'overview'} />;
  if (section === 'buckets' && a) return <BucketPage account={account} bucket={a} />;
  if (section === 'buckets') return <BucketsPage account={account} />;
  if (section === 'scripts' && a) return <ScriptPage account={account} script={a} />;
  if (section === 'scripts') return <ScriptsPage account={account} />;
  if (section === 'tokens') return <TokensPage account={account} />;
  return <ZonesPage account={account} />;
}

function App() {
  const [session, setSession] = useState<Session | undefined>(() => {
    const s = loadSession();
    useCredential(s?.credential);
    return s;
  });
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  const path = route.join('/');
  // After a navigation, keyboard and screen-reader users start at the new page's content.
  useEffect(() => { if (document.activeElement && document.activeElement !== document.body && !main.current?.contains(document.activeElement)) main.current?.focus(); }, [path]);
  if (!session) {
    return <SignIn onSignedIn={(s) => { saveSession(s); useCredential(s.credential); setSession(s); }} />;
  }
  const signOut = () => { clearSession(); useCredential(undefined); setSession(undefined); location.hash = '#/zones'; };
  const pickAccount = (id: string, name: string) => {
    const next = { ...session, accountId: id, accountName: name };
    saveSession(next);
    setSession(next);
    // Pages of one account's objects make no sense in another: back to its zones.
    if (route[0] !== 'tokens') location.hash = '#/zones';
  };
  const current = route[0] ?? 'zones';
  const link = (to: string, label: string) => <a href={href(to)} aria-current={current === to ? 'page' : undefined}>{label}</a>;
  return (
    <>
      <header class="top">
        <span class="brand">Stratus</span>
        <nav aria-label="Sections">{link('zones', 'Zones')}{link('buckets', 'Buckets')}{link('scripts', 'Scripts')}{link('tokens', 'API tokens')}</nav>
        <AccountPicker accountId={session.accountId} accountName={session.accountName} onPick={pickAccount} />
        <button type="button" onClick={signOut}>Sign out</button>
      </header>
      <main id="main" ref={main} tabIndex={-1}><Pages key={session.accountId} session={session} /></main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
