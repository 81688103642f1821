/** Memory and handling-time readings of a running Stratus for the DNS benches: RSS from /proc, smaps breakdown, /metrics histograms. */
import fs from 'node:fs';
import { procStatFields } from '../../dist/runtime/proc-stat.js';

/** RSS (MiB) of a process and its children (the UDP workers). */
export function rssMiB(pid) {
  const kib = (p) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
  let total = kib(pid);
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (Number(procStatFields(d)?.[1]) === pid) total += kib(d);
    } catch { /* gone */ }
  }
  return total / 1024;
}

/** Anonymous RSS (MiB) of a process: its own memory, without the pages of files it maps (SQLite maps its database). */
export function anonMiB(pid) {
  return Number(/RssAnon:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

/**
 * Where a process's resident memory is (MiB), from /proc/<pid>/smaps: anonymous memory (V8 heaps, malloc: the
 * SQLite page cache, buffers), of it the brk heap, the SQLite files mapped (the database, its -shm), the node
 * binary, and other files.
 */
export function rssBreakdown(pid) {
  const out = { anon: 0, brk: 0, sqlite: 0, node: 0, other: 0 };
  let kind = 'anon';
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      const file = head[1];
      kind = !file || file.startsWith('[') ? 'anon' : /stratus\.sqlite/.test(file) ? 'sqlite' : file === process.execPath || /\/node$/.test(file) ? 'node' : 'other';
      if (file === '[heap]') kind = 'brk';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) {
      out[kind] += Number(rss[1]) / 1024;
      if (kind === 'brk') out.anon += Number(rss[1]) / 1024;
    }
  }
  return out;
}

/** Stratus's own count of UDP answers by handling time (cumulative, per bucket bound in seconds), from /metrics. */
export function handlingTimes(admin) {
  return histogram(admin, 'stratus_dns_query_duration_seconds', 'transport="udp"');
}

/** The percentile of what a histogram counted between two {@link histogram} readings: 'under <bound>'. */
export function handlingPercentile(before, after, p) {
  const total = (after.get('+Inf') ?? 0) - (before.get('+Inf') ?? 0);
  if (total <= 0) return '-';
  for (const [le, n] of after) {
    if ((n - (before.get(le) ?? 0)) / total >= p / 100) return le === '+Inf' ? 'over 1 s' : `under ${Number(le) * 1000} ms`;
  }
  return '-';
}

/** Cumulative bucket counts (le -> count) of a Prometheus histogram on Stratus's admin listener, summed over the series whose labels contain `match`. */
export async function histogram(admin, name, match = '') {
  const text = await (await fetch(`${admin}/metrics`)).text();
  const out = new Map();
  for (const line of text.split('\n')) {
    const m = new RegExp(`^${name}_bucket\\{([^}]*)\\} (\\S+)$`).exec(line);
    const le = m && /le="([^"]+)"/.exec(m[1])?.[1];
    if (le && m[1].includes(match)) out.set(le, (out.get(le) ?? 0) + Number(m[2]));
  }
  return out;
}
