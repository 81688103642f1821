/**
 * SVCB and HTTPS (RFC 9460): `data{priority 0..65535, target, value}`; target a host name or `.`, value
 * the SvcParams (see `svc-params.ts`), printed canonically. Priority 0 (AliasMode) takes no params.
 * Content `priority target value` (`1 . alpn="h3,h2"`).
 */
import { checkHostname, fromZoneFileName, toAbsolute } from '../names.js';
import type { RecordType } from '../record.js';
import { dataSpec, storedData } from './data-spec.js';
import { report, SVC_PARAMS_INVALID } from './errors.js';
import { formatSvcParams, parseSvcParams } from './svc-params.js';
import { expectCount, intToken } from './tokens.js';
import type { RecordTypeSpec } from './types.js';

/** A spec for SVCB or HTTPS. */
function svcSpec(type: RecordType): RecordTypeSpec {
  return dataSpec(type, {
    build(r, _input, ctx) {
      const priority = r.int('priority', 0, 65535);
      const target = r.str('target', (s) => {
        const h = checkHostname(s, { allowRoot: true });
        return h.ok ? { value: h.name } : { rule: `must be a host name or . (${h.problem})` };
      });
      const raw = r.str('value', (s) => ({ value: s }), true) ?? '';
      const parsed = parseSvcParams(raw);
      if (!parsed.ok) { report(ctx.errors, SVC_PARAMS_INVALID, { type, detail: parsed.problem }); r.ok = false; }
      if (parsed.ok && priority === 0 && parsed.params.length > 0) {
        report(ctx.errors, SVC_PARAMS_INVALID, { type, detail: 'must be empty when priority is 0 (alias mode)' });
        r.ok = false;
      }
      if (priority === undefined || target === undefined || !parsed.ok || !r.ok) return undefined;
      const value = formatSvcParams(parsed.params);
      return { content: `${priority} ${target}${value ? ` ${value}` : ''}`, data: { priority, target, value }, priority: null };
    },
    toPresentation: (v) => {
      const d = storedData(v);
      return `${d.priority} ${toAbsolute(String(d.target))}${d.value ? ` ${d.value}` : ''}`;
    },
    parsePresentation(tokens, origin) {
      expectCount(type, tokens, 2, true);
      return { data: { priority: intToken(type, tokens[0]), target: fromZoneFileName(tokens[1]!, origin), value: tokens.slice(2).join(' ') } };
    },
  });
}

/** SVCB: general service binding. */
export const SVCB_SPEC = svcSpec('SVCB');
/** HTTPS: service binding for HTTPS. */
export const HTTPS_SPEC = svcSpec('HTTPS');
