/** The shape every data type shares: read `data` field by field, then derive `content` (and `priority`). */
import type { RecordType } from '../record.js';
import { dataReader, type DataReader } from './fields.js';
import type { RecordTypeSpec, RecordValue, RecordValueContext, RecordValueInput, StoredValue } from './types.js';

/** The per-type parts of a data type's spec. */
export interface DataTypeParts {
  /** Reads the fields (recording problems in the reader) and builds the value; undefined on problems. */
  build(r: DataReader, input: RecordValueInput, ctx: RecordValueContext): RecordValue | undefined;
  /** Fields tolerated in `data` without being read (e.g. SRV's deprecated ones, checked separately). */
  extraFields?: readonly string[];
  toPresentation(value: StoredValue): string;
  parsePresentation(tokens: string[], origin: string): Omit<RecordValueInput, 'type'>;
}

/** A spec for a data type. */
export function dataSpec(type: RecordType, parts: DataTypeParts): RecordTypeSpec {
  return {
    type,
    usesData: true,
    validate(input, ctx) {
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
