/**
 * Writes one workerd generation's configuration (Cap'n Proto text, workerd.capnp's `Config`) and the files it
 * embeds into a private folder: the supervisor worker bound to the edge socket, one static worker per script
 * version with workerd's own bindings, one external service per bucket binding (the store service, told apart
 * by injected headers carrying the per-process secret), and the two outbound networks.
 *
 * Every value from a tenant (module names and bytes, binding names and values) is written to a file and
 * embedded, never spliced into the config text; names in the text are escaped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { makeSubfolder } from '../temp-dirs.js';
import type { ScriptBundle, ScriptModule } from '../../edge/types.js';
import { effectiveLimits, limitModules, type SubrequestLimits } from './limits-shim.js';
import { classicScript } from './classic-script.js';
import { CONFIG_MODULE } from '../in-workerd/module-names.js';
import { v8FlagsLine } from './gc-flags.js';

/** Addresses and secrets shared by every generation of one runtime. */
export interface GenerationServices {
  /** `host:port` of the control service (route answers, version hand-off) in Node. */
  control: string;
  /** `host:port` of the store service (workerd's bucket protocol) in Node. */
  store: string;
  /** Per-process secret injected into every request to the control and store services. */
  secret: string;
  /** Outbound network of tenant scripts: CIDRs (or workerd's names such as "public") allowed and denied. */
  scriptNetwork: { allow: string[]; deny: string[] };
  /** Generations accept from the front process, whose `request.cf` header they read; false: from clients. */
  behindFront?: boolean;
  /** Subrequest limits per request (`limits-shim.ts`); none when absent. */
  subrequests?: SubrequestLimits;
}

/** One generation: the supervisor and the script versions it serves. */
export interface GenerationSpec {
  dir: string;
  supervisorSource: string;
  /** Becomes the supervisor's `config.json` module. */
  supervisorConfig: unknown;
  versions: ScriptBundle[];
  services: GenerationServices;
  /**
   * Version id -> a Unix socket path on which that version's worker (behind its limits entry) accepts directly:
   * the fast path, nginx forwarding to it with no supervisor in between (docs/runtime.md, "Design"). The
   * request's scheme (`request.url`) is nginx's `x-stratus-proto` (https when nginx ended TLS), which workerd drops.
   */
  fastSockets?: Record<string, string>;
}

/** The header names the store service reads (see store-service/). */
export const STORE_SECRET_HEADER = 'x-stratus-secret';
export const STORE_BINDING_HEADER = 'x-stratus-binding';

/** The binding service name of a script version's worker inside the supervisor's env. */
export function versionBindingName(versionId: string): string {
  return `v:${versionId}`;
}

/** Escapes a string for a Cap'n Proto text literal. */
export function capnpString(value: string): string {
  let out = '"';
  for (const byte of Buffer.from(value, 'utf8')) {
    if (byte === 0x22) out += '\\"';
    else if (byte === 0x5c) out += '\\\\';
    else if (byte < 0x20 || byte >= 0x7f) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    else out += String.fromCharCode(byte);
  }
  return `${out}"`;
}

const MODULE_KIND: Record<Exclude<ScriptModule['type'], 'sourcemap'>, string> = {
  esm: 'esModule', commonjs: 'commonJsModule', text: 'text', data: 'data', wasm: 'wasm', json: 'json',
};

class FileWriter {
  private n = 0;
  constructor(private readonly dir: string) {}
  /** Writes bytes to a new file and returns `embed "<file>"`. */
  embed(content: Uint8Array | string): string {
    const name = `f${this.n++}`;
    fs.writeFileSync(path.join(this.dir, name), content, { mode: 0o600 });
    return `embed ${capnpString(name)}`;
  }
}

function header(name: string, value: string): string {
  return `(name = ${capnpString(name)}, value = ${capnpString(value)})`;
}

/** Wrapped CommonJS main modules by their bytes: a version is immutable, and every later generation holds it again. */
const wrapped = new WeakMap<Uint8Array, string>();

/** A module's bytes as workerd gets them: a CommonJS main module (a Service Worker script) wrapped to run as a classic script. */
function moduleContent(bundle: ScriptBundle, m: ScriptModule): Uint8Array | string {
  if (m.name !== bundle.mainModule || m.type !== 'commonjs') return m.content;
  let text = wrapped.get(m.content);
  if (text === undefined) {
    text = classicScript(new TextDecoder().decode(m.content));
    wrapped.set(m.content, text);
  }
  return text;
}

function versionService(bundle: ScriptBundle, files: FileWriter, services: GenerationServices, extra: string[]): string {
  const modules = bundle.modules
    .filter((m) => m.type !== 'sourcemap')
    .map((m) => `(name = ${capnpString(m.name)}, ${MODULE_KIND[m.type as keyof typeof MODULE_KIND]} = ${files.embed(moduleContent(bundle, m))})`);
  // The entry module comes first: workerd runs the first module.
  const main = bundle.modules.findIndex((m) => m.name === bundle.mainModule);
  if (main > 0) modules.unshift(...modules.splice(main, 1));
  const bindings = bundle.bindings.map((b, i) => {
    switch (b.type) {
      case 'plain_text':
      case 'secret_text':
        return `(name = ${capnpString(b.name)}, text = ${files.embed(b.text)})`;
      case 'json':
        return `(name = ${capnpString(b.name)}, json = ${files.embed(JSON.stringify(b.json))})`;
      case 'r2_bucket': {
        const service = `r2:${bundle.versionId}:${i}`;
        const binding = JSON.stringify({
          accountId: bundle.accountId, bucket: b.bucketName,
          compatibilityDate: bundle.compatibilityDate, compatibilityFlags: bundle.compatibilityFlags,
        });
        extra.push(`(name = ${capnpString(service)}, external = (address = ${capnpString(services.store)}, http = (injectRequestHeaders = [${header(STORE_SECRET_HEADER, services.secret)}, ${header(STORE_BINDING_HEADER, binding)}])))`);
        return `(name = ${capnpString(b.name)}, r2Bucket = ${capnpString(service)})`;
      }
    }
  });
  // Every version runs behind the entry modules (limits-shim.ts): subrequest counters, Service Worker scripts.
  const mainType = bundle.modules.find((m) => m.name === bundle.mainModule)?.type;
  const buckets = bundle.bindings.filter((b) => b.type === 'r2_bucket').map((b) => b.name);
  const limits = effectiveLimits(services.subrequests ?? { fetch: 0, bucket: 0 }, bundle.limits);
  const shim = limitModules(bundle.mainModule, mainType, buckets, limits, bundle.compatibilityFlags);
  modules.unshift(...shim.modules.map((m) => `(name = ${capnpString(m.name)}, ${m.kind} = ${files.embed(m.source)})`));
  const flags = shim.flags.map(capnpString).join(', ');
  return `(name = ${capnpString(`s:${bundle.versionId}`)}, worker = (modules = [${modules.join(', ')}], ` +
    `compatibilityDate = ${capnpString(bundle.compatibilityDate)}, compatibilityFlags = [${flags}], ` +
    `bindings = [${bindings.join(', ')}], globalOutbound = "script-network"))`;
}

/** Writes the generation's files into `spec.dir` (created, mode 0700, in a folder that exists) and returns the config file's path. */
export function writeGenerationConfig(spec: GenerationSpec): string {
  makeSubfolder(spec.dir);
  const files = new FileWriter(spec.dir);
  const extra: string[] = [];
  const tenants = spec.versions.map((v) => versionService(v, files, spec.services, extra));
  const versionBindings = spec.versions.map((v) => `(name = ${capnpString(versionBindingName(v.versionId))}, service = ${capnpString(`s:${v.versionId}`)})`);
  const { allow, deny } = spec.services.scriptNetwork;
  const text = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "supervisor", worker = (
      modules = [(name = "supervisor.js", esModule = ${files.embed(spec.supervisorSource)}), (name = ${capnpString(CONFIG_MODULE)}, json = ${files.embed(JSON.stringify(spec.supervisorConfig))})],
      compatibilityDate = "2025-01-01",
      bindings = [${['(name = "CONTROL", service = "control")', '(name = "ORIGIN", service = "control")', ...versionBindings].join(', ')}],
      globalOutbound = "origin-network")),
    (name = "control", external = (address = ${capnpString(spec.services.control)}, http = (injectRequestHeaders = [${header(STORE_SECRET_HEADER, spec.services.secret)}]))),
    (name = "origin-network", network = (allow = ["public", "private", "local"])),
    (name = "script-network", network = (allow = [${allow.map(capnpString).join(', ')}], deny = [${deny.map(capnpString).join(', ')}]))${[...tenants, ...extra].map((t) => `,\n    ${t}`).join('')}
  ],
  sockets = [
    (name = "edge", http = (${spec.services.behindFront ? 'cfBlobHeader = "x-stratus-cf"' : ''}), service = "supervisor"),
    (name = "internal", address = "127.0.0.1:0", http = (), service = "supervisor"),${Object.entries(spec.fastSockets ?? {}).map(([v, socket], i) => `
    (name = "fast${i}", address = ${capnpString(`unix:${socket}`)}, http = (cfBlobHeader = "x-stratus-cf", forwardedProtoHeader = "x-stratus-proto"), service = ${capnpString(`s:${v}`)}),`).join('')}
  ],
  ${v8FlagsLine()}
);
`;
  const file = path.join(spec.dir, 'config.capnp');
  fs.writeFileSync(file, text, { mode: 0o600 });
  return file;
}
