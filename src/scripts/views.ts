/** Scripts, versions and deployments as the v4 API shows them (production's field names). */
import type { StoredBinding } from './bindings.js';
import { bindingView } from './bindings.js';
import type { DeploymentRow, ScriptRow, VersionRow } from './script-rows.js';
import { traffic } from './script-rows.js';
import { scriptSettings } from './scripts-service.js';
import type { StoredLimits } from './limits.js';

/** The Script object (list, upload and services answers). */
export function scriptView(s: ScriptRow, current: VersionRow | undefined): Record<string, unknown> {
  const settings = scriptSettings(s);
  return {
    id: s.name,
    tag: s.id,
    etag: current?.etag ?? '',
    created_on: s.created_on,
    modified_on: s.modified_on,
    compatibility_date: current?.compatibility_date ?? '',
    compatibility_flags: current ? JSON.parse(current.compatibility_flags) as string[] : [],
    usage_model: 'standard',
    has_assets: false,
    has_modules: true,
    logpush: settings.logpush ?? false,
    tags: settings.tags ?? [],
    tail_consumers: settings.tail_consumers ?? null,
    last_deployed_from: s.last_deployed_from,
    placement_mode: null,
  };
}

/** A version's metadata block. */
function versionMetadata(v: VersionRow): Record<string, unknown> {
  return { author_id: v.author_id, author_email: v.author_email, created_on: v.created_on, modified_on: v.created_on, source: v.source, hasPreview: false };
}

/** A version as listed (`GET …/versions`). */
export function versionListItem(v: VersionRow): Record<string, unknown> {
  return { id: v.id, number: v.number, metadata: versionMetadata(v), annotations: JSON.parse(v.annotations) as Record<string, string> };
}

/** A version with its resources (`GET …/versions/:id`, `POST …/versions`). */
export function versionView(s: ScriptRow, v: VersionRow): Record<string, unknown> {
  return {
    ...versionListItem(v),
    resources: {
      script: { etag: v.etag, last_deployed_from: s.last_deployed_from },
      script_runtime: {
        compatibility_date: v.compatibility_date,
        compatibility_flags: JSON.parse(v.compatibility_flags) as string[],
        usage_model: 'standard',
        limits: JSON.parse(v.limits) as StoredLimits,
      },
      bindings: (JSON.parse(v.bindings) as StoredBinding[]).map(bindingView),
    },
  };
}

/** A deployment. */
export function deploymentView(d: DeploymentRow): Record<string, unknown> {
  return {
    id: d.id,
    created_on: d.created_on,
    source: d.source,
    strategy: 'percentage',
    author_email: d.author_email,
    annotations: JSON.parse(d.annotations) as Record<string, string>,
    versions: traffic(d),
  };
}

/** `GET …/scripts/:name/settings`: the settings of the version traffic goes to. */
export function settingsView(s: ScriptRow, v: VersionRow | undefined): Record<string, unknown> {
  const settings = scriptSettings(s);
  return {
    bindings: v ? (JSON.parse(v.bindings) as StoredBinding[]).map(bindingView) : [],
    compatibility_date: v?.compatibility_date ?? '',
    compatibility_flags: v ? JSON.parse(v.compatibility_flags) as string[] : [],
    logpush: settings.logpush ?? false,
    observability: settings.observability ?? null,
    placement: {},
    tags: settings.tags ?? [],
    tail_consumers: settings.tail_consumers ?? null,
    usage_model: 'standard',
    limits: v ? JSON.parse(v.limits) as StoredLimits : {},
  };
}
