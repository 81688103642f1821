/**
 * The shape every data type shares: read `data` field by field, then derive `content` (and `priority`).
 * A body without `data` but with `content` in the type's content form (`0 issue "ca.example"`; SRV and URI
 * without the priority, which then comes from the top-level `priority`) is read as if it had sent the data.
 */
import type { RecordType } from '../record.js';
import { CONTENT_INVALID, report } from './errors.js';
import { dataReader, type DataReader } from './fields.js';
import { tokenize } from './tokens.js';
import type { RecordTypeSpec, RecordValue, RecordValueContext, RecordValueInput, StoredValue } from './types.js';

/** The per-type parts of a data type's spec. */
export interface DataTypeParts {
  /** Reads the fields (recording problems in the reader) and builds the value; undefined on problems. */
  build(r: DataReader, input: RecordValueInput, ctx: RecordValueContext): RecordValue | undefined;
  /** Fields tolerated in `data` without being read (e.g. SRV's deprecated ones, checked separately). */
  extraFields?: readonly string[];
  /** True when `content` leaves out the priority (SRV, URI). */
  contentOmitsPriority?: boolean;
  toPresentation(value: StoredValue): string;
  parsePresentation(tokens: string[], origin: string): Omit<RecordValueInput, 'type'>;
}

/** A spec for a data type. */
export function dataSpec(type: RecordType, parts: DataTypeParts): RecordTypeSpec {
  return {
    type,
    usesData: true,
    validate(input, ctx) {
      if ((input.data === undefined || input.data === null) && typeof input.content === 'string' && input.content.trim() !== '') {
        const fromContent = dataFromContent(input, parts);
        if (typeof fromContent === 'string') return void report(ctx.errors, CONTENT_INVALID, { type, detail: `send data, or content in the form the API returns (${fromContent})` });
        input = { ...input, ...fromContent };
      }
      const r = dataReader(type, input.data, ctx.errors);
      if (!r) return undefined;
      const value = parts.build(r, input, ctx);
      const clean = r.finish(parts.extraFields);
      return clean && value ? value : undefined;
    },
    toPresentation: parts.toPresentation,
    parsePresentation: parts.parsePresentation,
  };
}

/** `data` of a stored value, typed loosely for presentation. */
export function storedData(v: StoredValue): Record<string, any> {
  return (v.data ?? {}) as Record<string, any>;
}

/** The data (and priority) a content-only body stands for, or a problem text. */
function dataFromContent(input: RecordValueInput, parts: DataTypeParts): Omit<RecordValueInput, 'type'> | string {
  try {
    const tokens = tokenize(String(input.content));
    if (parts.contentOmitsPriority) {
      if (input.priority === undefined || input.priority === null) return 'priority is required with this content';
      tokens.unshift(String(input.priority));
    }
    const parsed = parts.parsePresentation(tokens, '');
    return { data: parsed.data, priority: parsed.priority ?? input.priority };
  } catch (err) {
    return (err as Error).message;
  }
}
