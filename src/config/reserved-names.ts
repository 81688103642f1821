/**
 * Names the instance's own listeners answer for, which no tenant may add as a zone (zones/name-policy.ts):
 * the virtual-hosted S3 domain, the workers domain and the public bucket domain. A listener with a domain adds it here.
 */
import type { Config } from './config.js';

/** The listener names of a configuration (each reserved with everything below it). */
export function listenerNames(config: Config): string[] {
  const names: string[] = [];
  if (config.s3Domain !== undefined) names.push(config.s3Domain);
  names.push(config.workersDomain);
  names.push(config.publicDomain);
  return names;
}
