/**
 * The account the pages work on (buckets, scripts, tokens' resources, new zones, the zones list): a picker in the
 * header listing the accounts the credential reaches (`GET /accounts`: a user's own accounts and those it was
 * given; an account token's one account). The choice is kept in the tab's session with the credential.
 */
import { get } from './api';
import { useLoad } from './ui';

/** The header's account picker; a plain label when the credential reaches one account. */
export function AccountPicker({ accountId, accountName, onPick }: { accountId: string; accountName: string; onPick: (id: string, name: string) => void }) {
  const accounts = useLoad(() => get<any[]>('/accounts', { per_page: 50 }), []);
  const list = accounts.data?.result ?? [];
  if (list.length < 2) return <span class="muted account">Account: {accountName}</span>;
  return (
    <label class="account inline">
      <span>Account</span>
      <select name="account" value={accountId} onChange={(e) => {
        const picked = list.find((a) => a.id === e.currentTarget.value);
        if (picked) onPick(picked.id, picked.name);
      }}>
        {list.map((a) => <option key={a.id} value={a.id}>{a.name}</option>)}
      </select>
    </label>
  );
}
