/**
 * A zone's settings (`/zones/:id/settings`): on/off settings as switches, numbers and words as text boxes, other
 * values shown as JSON; each change is one PATCH of that setting, and the API's refusal shows beside it.
 */
import { useState } from 'preact/hooks';
import { call, get } from '../api';
import { Errors, LoadState, useAction, useLoad } from '../ui';

/** The zone settings tab. */
export function ZoneSettingsTab({ zoneId }: { zoneId: string }) {
  const list = useLoad(() => get<any[]>(`/zones/${zoneId}/settings`), [zoneId]);
  return (
    <>
      <LoadState loading={list.loading} error={list.error} />
      {list.data ? (
        <table class="settings">
          <thead><tr><th scope="col">Setting</th><th scope="col">Value</th><th scope="col">Modified</th></tr></thead>
          <tbody>{list.data.result.map((s) => <SettingRow key={s.id} zoneId={zoneId} setting={s} />)}</tbody>
        </table>
      ) : null}
    </>
  );
}

function SettingRow({ zoneId, setting }: { zoneId: string; setting: any }) {
  const [value, setValue] = useState<unknown>(setting.value);
  const [text, setText] = useState(String(setting.value));
  const save = useAction();
  const send = async (v: unknown) => {
    const before = value;
    setValue(v); // shown at once; put back if the API refuses
    let answer: any;
    if (await save.run(async () => { answer = await call('PATCH', `/zones/${zoneId}/settings/${setting.id}`, { value: v }); })) {
      setValue(answer.result.value);
      setText(String(answer.result.value));
    } else setValue(before);
  };
  const label = setting.id.replace(/_/g, ' ');
  let control;
  if (!setting.editable) control = <code>{JSON.stringify(value)}</code>;
  else if (value === 'on' || value === 'off') {
    control = <label class="inline"><input type="checkbox" checked={value === 'on'} disabled={save.busy} onChange={(e) => send(e.currentTarget.checked ? 'on' : 'off')} /> {label} on</label>;
  } else if (typeof value === 'string' || typeof value === 'number') {
    control = (
      <form class="inline" onSubmit={(e) => { e.preventDefault(); void send(typeof value === 'number' ? Number(text) : text); }}>
        <input aria-label={label} value={text} onInput={(e) => setText(e.currentTarget.value)} />{' '}
        <button type="submit" class="secondary" disabled={save.busy || text === String(value)} aria-label={`Save ${label}`}>Save</button>
      </form>
    );
  } else control = <code>{JSON.stringify(value)}</code>;
  return (
    <tr>
      <th scope="row">{setting.id}</th>
      <td>{control}<Errors error={save.error} /></td>
      <td>{setting.modified_on ?? ''}</td>
    </tr>
  );
}
