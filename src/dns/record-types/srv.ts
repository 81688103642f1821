/**
 * SRV (RFC 2782): name `_service._proto.name`; `data{priority, weight, port, target}` (0..65535 each,
 * target a host name or `.`); content `weight port target`, priority echoed top-level (reference §4.2).
 * `data.service`, `data.proto`, `data.name` (deprecated) are accepted before 2024-05-31 (api date) and
 * checked against the name, or build it when the name lacks `_service._proto`; from then on they are an
 * error (contract, Versioning).
 */
import { oldBehaviourApplies } from '../../deprecation/schedule.js';
import { checkHostname, fromZoneFileName, normalizeRecordName, toAbsolute } from '../names.js';
import { report, SRV_DATA_FIELDS_REMOVED, SRV_DATA_NAME_MISMATCH, SRV_NAME_FORM } from './errors.js';
import { dataSpec, storedData } from './data-spec.js';
import type { DataReader } from './fields.js';
import { expectCount, intToken } from './tokens.js';
import type { RecordValueContext } from './types.js';

const OLD_FIELDS = ['service', 'proto', 'name'] as const;

/** The service, protocol and base name of an SRV owner name, or undefined when it lacks the form. */
export function srvNameParts(name: string): { service: string; proto: string; name: string } | undefined {
  const labels = name.split('.');
  if (labels.length < 3 || !/^_[a-z0-9-]+$/.test(labels[0]!) || !/^_[a-z0-9-]+$/.test(labels[1]!)) return undefined;
  return { service: labels[0]!, proto: labels[1]!, name: labels.slice(2).join('.') };
}

/** Handles the deprecated fields; returns the owner name to use, or undefined after recording problems. */
function ownerName(r: DataReader, ctx: RecordValueContext): string | undefined {
  const given = OLD_FIELDS.filter((f) => r.data[f] !== undefined && r.data[f] !== null);
  const parts = srvNameParts(ctx.recordName);
  if (given.length === 0) {
    if (!parts) return void report(ctx.errors, SRV_NAME_FORM, { name: ctx.recordName });
    return ctx.recordName;
  }
  if (!oldBehaviourApplies('srv-data-fields', ctx.apiDate)) {
    for (const field of given) report(ctx.errors, SRV_DATA_FIELDS_REMOVED, { field });
    return undefined;
  }
  const label = (f: 'service' | 'proto') => r.str(f, (s) => {
    const v = s.trim().toLowerCase();
    return /^_[a-z0-9-]{1,62}$/.test(v) ? { value: v } : { rule: 'must be one label starting with an underscore, like _sip or _tcp' };
  }, true);
  const service = label('service');
  const proto = label('proto');
  let base: string | undefined;
  if (r.data.name !== undefined && r.data.name !== null) {
    r.raw('name');
    base = normalizeRecordName(r.data.name, ctx.zoneName, 'SRV', ctx.errors, []);
    if (base === undefined) return undefined;
  }
  if (!r.ok) return undefined;
  if (parts) {
    const checks: [string, string | undefined, string][] = [['service', service, parts.service], ['proto', proto, parts.proto], ['name', base, parts.name]];
    let ok = true;
    for (const [field, value, expected] of checks) {
      if (value !== undefined && value !== expected) {
        report(ctx.errors, SRV_DATA_NAME_MISMATCH, { field, value, name: ctx.recordName });
        ok = false;
      }
    }
    return ok ? ctx.recordName : undefined;
  }
  if (service === undefined || proto === undefined) return void report(ctx.errors, SRV_NAME_FORM, { name: ctx.recordName });
  return `${service}.${proto}.${base ?? ctx.recordName}`;
}

/** SRV: service locator. */
export const SRV_SPEC = dataSpec('SRV', {
  build(r, input, ctx) {
    const owner = ownerName(r, ctx);
    // Older clients send SRV priority top-level only; it stands in when data.priority is absent.
    const top = typeof input.priority === 'number' && Number.isInteger(input.priority) && input.priority >= 0 && input.priority <= 65535
      ? input.priority : undefined;
    const priority = r.int('priority', 0, 65535, top);
    const weight = r.int('weight', 0, 65535);
    const port = r.int('port', 0, 65535);
    const target = r.str('target', (s) => {
      const h = checkHostname(s, { allowRoot: true });
      return h.ok ? { value: h.name } : { rule: `must be a host name or . (${h.problem})` };
    });
    if (owner === undefined || priority === undefined || weight === undefined || port === undefined || target === undefined) return undefined;
    const value = { content: `${weight} ${port} ${target}`, data: { priority, weight, port, target }, priority };
    return owner === ctx.recordName ? value : { ...value, name: owner };
  },
  extraFields: OLD_FIELDS,
  contentOmitsPriority: true,
  toPresentation: (v) => { const d = storedData(v); return `${d.priority} ${d.weight} ${d.port} ${toAbsolute(String(d.target))}`; },
  parsePresentation(tokens, origin) {
    expectCount('SRV', tokens, 4);
    return {
      data: { priority: intToken('SRV', tokens[0]), weight: intToken('SRV', tokens[1]), port: intToken('SRV', tokens[2]), target: fromZoneFileName(tokens[3]!, origin) },
    };
  },
});
