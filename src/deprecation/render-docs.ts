/**
 * Renders `docs/deprecations.md` from the schedule (pure). `test/deprecation/docs.test.ts` compares the file with
 * this output, so the document never drifts from the data; run it with `STRATUS_WRITE_DOCS=1` to rewrite it.
 */
import { SCHEDULE, type ScheduleEntry } from './schedule.js';
import { DEPRECATION_CODES } from './codes.js';

function routes(e: ScheduleEntry): string {
  if (e.routes.length === 0) return '–';
  return e.routes.map((r) => `${r.methods.join(', ')} \`${r.path}\`${r.affected ? ' (affected)' : ''}`).join('<br>');
}

function stratus(e: ScheduleEntry): string {
  if (e.kind === 'tls') return 'not applicable: Stratus never offers the draft suites';
  if (!e.served && e.routes.length === 0) return 'not applicable: Stratus has no API with this field';
  if (!e.served) return `not provided: 501 + ${DEPRECATION_CODES.routeNotProvided}${e.removal ? `; 410 + ${DEPRECATION_CODES.routeRemoved} from ${e.removal}` : ''}`;
  if (e.id === 'http-te-and-cl') return 'new behaviour at every api date: Node\'s strict HTTP parser refuses the request before its api date is read (docs/compatibility.md)';
  if (e.removal === e.date) return `old behaviour before ${e.date}, new from it`;
  if (e.signal === 'usage') return 'headers and a messages notice when the old form is used';
  return `served; headers from ${e.date}${e.removal ? `; 410 + ${DEPRECATION_CODES.routeRemoved} from ${e.removal}` : ''}`;
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

/** The whole Markdown document. */
export function renderDeprecationsDoc(): string {
  const lines = [
    '# Deprecation schedule',
    '',
    '<!-- Generated from src/deprecation/schedule-data.ts by src/deprecation/render-docs.ts; test/deprecation/docs.test.ts keeps it in sync. -->',
    '',
    'Every v4 request is served as of its **api date**: the `api-version: YYYY-MM-DD` request header, else',
    '`--api-date`, else today (UTC). A header later than the server\'s date is clamped to it (the official SDK',
    'always sends its own today); a malformed one is a 400 (6003 with 6120 in `error_chain`). Every v4 response',
    'carries the effective date in its `api-version` header. `GET /client/v4/deprecations` (no authentication)',
    'serves this table as JSON with each row\'s phase at the request\'s api date; `/client/v4/deprecations/:id` one row.',
    '',
    'Phases: *active* before the date; *deprecated* from the date while the old form is served (responses carry',
    '`Deprecation: @<unix>` (RFC 9745), `Sunset` (RFC 8594) when a removal date is known, and `Link` with',
    '`rel="successor-version"` and `rel="deprecation"`); *removed* from the removal date.',
    '',
    '| date | id | change | replacement | routes | removal | Stratus |',
    '|---|---|---|---|---|---|---|',
    ...SCHEDULE.map((e) => `| ${e.date} | \`${e.id}\` | ${cell(e.change)} | ${cell(e.replacement)} | ${cell(routes(e))} | ${e.removal ?? '–'}${e.parts ? Object.entries(e.parts).map(([k, p]) => `<br>${k}: ${p.removal}`).join('') : ''} | ${stratus(e)} |`),
    '',
    '## Error codes',
    '',
    '| code | HTTP | when |',
    '|---|---|---|',
    `| ${DEPRECATION_CODES.invalidHeaders} + ${DEPRECATION_CODES.invalidApiVersion} | 400 | \`api-version\` is not a calendar date YYYY-MM-DD |`,
    `| ${DEPRECATION_CODES.invalidHeaders} + ${DEPRECATION_CODES.framingConflict} | 400 | both \`Transfer-Encoding\` and \`Content-Length\`, at every api date (the connection is closed) |`,
    `| ${DEPRECATION_CODES.routeNotProvided} | 501 | a schedule route Stratus does not provide (with \`x-should-retry: false\`) |`,
    `| ${DEPRECATION_CODES.routeRemoved} | 410 | a schedule route removed at the api date |`,
    `| ${DEPRECATION_CODES.deprecationNotice} | – | \`messages\` entry: the request used a deprecated form |`,
    `| ${DEPRECATION_CODES.unknownZoneSetting} | 400 | unknown zone setting name |`,
    `| ${DEPRECATION_CODES.invalidZoneSetting} | 400 | invalid zone setting value or bulk body |`,
    `| ${DEPRECATION_CODES.invalidDnsSetting} | 400 | invalid zone/account DNS settings or legacy account fields (one entry per problem) |`,
    '',
    '## Settings kept in sync (one stored value each, at every api date)',
    '',
    '- `/zones/:zone_id/settings/cname_flattening` ⇔ `flatten_all_cnames` (`on`/`flatten_all` = true; `off`/`apex`/`flatten_at_root` = false; read back as `flatten_all`/`flatten_at_root`).',
    '- `/zones/:zone_id/dns_settings/use_apex_ns` ⇔ `multi_provider`; `/zones/:zone_id/dns_settings/secondary_overrides` ⇔ `secondary_overrides` (`{id, value, editable, modified_on}`).',
    '- account `settings.default_nameservers` + `settings.use_account_custom_ns_by_default` ⇔ `zone_defaults.nameservers.type` (`custom.account` ⇔ true; `cloudflare.standard.random` reads as `cloudflare.standard` and survives writing that back).',
    '',
  ];
  return lines.join('\n');
}
