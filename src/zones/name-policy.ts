/**
 * Names nobody may add as a zone (docs/security.md):
 * - names that are not below a public suffix: top-level domains, public suffixes of the Public Suffix List
 *   (ICANN and private sections, from the `tldts` package and its data: `co.uk`, `github.io`), and so `arpa`,
 *   `in-addr.arpa` and `ip6.arpa` themselves (reverse zones below them, `2.0.192.in-addr.arpa`, stay allowed).
 *   Production answers 1099. Names under a top-level domain that is not on the list (`.test`, `.example`,
 *   `.invalid`, `.internal`, `.lan`) follow the list's default rule: their last label is the suffix, so
 *   `example.test` can be added and `test` cannot;
 * - names the instance reserves for itself: the registrable domains of its name servers (`stratus.invalid`
 *   for `ns1.stratus.invalid`) and every name below them, and the names of its other listeners (the S3
 *   domain, later the workers domain) and below. 1093.
 * An operator exempts a name and everything below it with `--zone-name-allow`.
 */
import { parse } from 'tldts';
import { AppError } from '../shared/errors.js';

/** What the instance reserves and what the operator allows. */
export interface NamePolicyOptions {
  /** Name servers assigned to zones: their registrable domains (and everything below) are reserved. */
  nameservers: readonly string[];
  /** Names of the instance's listeners (S3 domain, workers domain): reserved with everything below. */
  listenerNames: readonly string[];
  /** Names (and everything below them) exempt from every rule here. */
  allow: readonly string[];
}

/** The registrable domain of a name by the Public Suffix List (private section included), or null. */
export function registrableDomain(name: string): string | null {
  return parse(name, { allowPrivateDomains: true }).domain ?? null;
}

/** True when `name` is `base` or lies below it. */
export function isAtOrBelow(name: string, base: string): boolean {
  return name === base || name.endsWith(`.${base}`);
}

/** The 1099 error production answers for a name that is not a registrable domain or below one. */
export function notRegistrable(name: string): AppError {
  return new AppError(1099, `We were unable to identify ${name} as a registered domain. Please ensure you are providing the root domain and not any subdomains (e.g., example.com, not subdomain.example.com)`);
}

/** The error for a name this instance reserves for itself. */
export function reservedName(name: string): AppError {
  return new AppError(1093, `This zone cannot be added at this time: ${name} is reserved by this Stratus instance. Please contact its operator.`);
}

/** Decides whether a (normalized) name may be added as a zone at all. */
export class NamePolicy {
  private readonly reserved: string[];
  private readonly allow: string[];

  constructor(opts: NamePolicyOptions) {
    const clean = (n: string) => n.trim().toLowerCase().replace(/\.+$/, '');
    this.allow = opts.allow.map(clean).filter(Boolean);
    const nsDomains = opts.nameservers.map(clean).map((ns) => registrableDomain(ns) ?? ns);
    this.reserved = [...new Set([...nsDomains, ...opts.listenerNames.map(clean)].filter(Boolean))];
  }

  /** The error refusing `name`, or undefined when it may be added. */
  problem(name: string): AppError | undefined {
    if (this.allow.some((a) => isAtOrBelow(name, a))) return undefined;
    if (registrableDomain(name) === null) return notRegistrable(name);
    if (this.reserved.some((r) => isAtOrBelow(name, r))) return reservedName(name);
    return undefined;
  }
}
