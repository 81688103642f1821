/**
 * Name filter values, read like record bodies: `@`, relative or full, any case, with or without a trailing
 * dot. `exact` values become full names. For the other comparisons the value is a piece of text, lowercased;
 * a trailing dot marks the end of the name (`name.contains=w.example.` finds names ending in `w.example`,
 * `name.startswith=www.example.com.` is that exact name).
 */
import type { TextOp } from './types.js';

/** Expands a name filter value to the full lowercase name it stands for. */
export function fullFilterName(raw: string, zoneName: string): string {
  const name = raw.trim().toLowerCase().replace(/\.$/, '');
  if (name === '@' || name === '') return zoneName;
  if (name === zoneName || name.endsWith(`.${zoneName}`)) return name;
  return `${name}.${zoneName}`;
}

/** A name comparison after normalization. */
export function nameComparison(op: TextOp, raw: string, zoneName: string): { op: TextOp; value: string } {
  if (op === 'exact') return { op, value: fullFilterName(raw, zoneName) };
  const text = raw.trim().toLowerCase();
  if (text === '@') return { op: op === 'contains' || op === 'endswith' ? 'endswith' : 'startswith', value: zoneName };
  if (!text.endsWith('.') || text === '.') return { op, value: text };
  const anchored = text.slice(0, -1);
  if (op === 'startswith') return { op: 'exact', value: anchored };
  return { op: 'endswith', value: anchored };
}
