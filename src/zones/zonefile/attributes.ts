/**
 * Record attributes carried in a zone file's line comment, as the production export writes them
 * (reference dns-api.md §6.2): `; <comment> cf_tags=<tag>,<tag>,...`.
 *
 * - The tag list follows the LAST `cf_tags=`; the comment is the text before it. A comment that itself
 *   contains `cf_tags=` is therefore written with an extra trailing ` cf_tags=` (an empty list).
 * - A tag is `name:value`, `name:` or `name` (both empty value); a value containing `"`, `=`, `,`, `\` or
 *   white space is written JSON-quoted (`name:"a,b"`).
 * - Reserved tags: `cf-proxied:true|false` (the record's proxied flag; always written for A, AAAA and
 *   CNAME) and `cf-flatten-cname` (the CNAME's `settings.flatten_cname`). They are not stored as tags.
 */

/** What a line comment says about its record. */
export interface LineAttributes {
  /** The record comment (null when none). */
  comment: string | null;
  /** User tags as `name:value`. */
  tags: string[];
  /** `cf-proxied`, when given. */
  proxied?: boolean;
  /** `cf-flatten-cname`, when given. */
  flattenCname?: boolean;
}

const MARK = 'cf_tags=';

/** Reads a line comment (without `;`); throws an Error with a message when the tag list is malformed. */
export function parseAttributes(comment: string | null): LineAttributes {
  if (comment === null) return { comment: null, tags: [] };
  const at = comment.lastIndexOf(MARK);
  if (at < 0 || (at > 0 && !/\s/.test(comment[at - 1]!))) return { comment: comment.trim() || null, tags: [] };
  const text = comment.slice(0, at).trim();
  const out: LineAttributes = { comment: text === '' ? null : text, tags: [] };
  for (const [name, value] of splitTags(comment.slice(at + MARK.length).trim())) {
    const lower = name.toLowerCase();
    if (lower === 'cf-proxied') {
      if (value !== 'true' && value !== 'false') throw new Error(`cf-proxied must be true or false, not ${JSON.stringify(value)}`);
      out.proxied = value === 'true';
    } else if (lower === 'cf-flatten-cname') {
      if (value !== '' && value !== 'true' && value !== 'false') throw new Error(`cf-flatten-cname takes no value (or true/false), not ${JSON.stringify(value)}`);
      out.flattenCname = value !== 'false';
    } else {
      out.tags.push(`${name}:${value}`);
    }
  }
  return out;
}

/** Splits `a:1,b:"x,y",c` into name/value pairs. */
function splitTags(list: string): [string, string][] {
  const pairs: [string, string][] = [];
  let i = 0;
  while (i < list.length) {
    let j = i;
    while (j < list.length && list[j] !== ':' && list[j] !== ',') j++;
    const name = list.slice(i, j).trim();
    let value = '';
    if (list[j] === ':') {
      j++;
      if (list[j] === '"') {
        let k = j + 1;
        while (k < list.length && list[k] !== '"') k += list[k] === '\\' ? 2 : 1;
        if (k >= list.length) throw new Error(`the quoted value of tag ${name} is not closed`);
        try {
          value = JSON.parse(list.slice(j, k + 1)) as string;
        } catch {
          throw new Error(`the quoted value of tag ${name} is not a valid JSON string`);
        }
        j = k + 1;
        while (j < list.length && /\s/.test(list[j]!)) j++;
        if (j < list.length && list[j] !== ',') throw new Error(`unexpected text after the quoted value of tag ${name}`);
      } else {
        const k = list.indexOf(',', j);
        const end = k < 0 ? list.length : k;
        value = list.slice(j, end).trim();
        j = end;
      }
    }
    if (name === '' && value === '') { i = j + 1; continue; } // empty item (`a,,b` or a trailing comma)
    if (name === '') throw new Error('a tag without a name in cf_tags');
    pairs.push([name, value]);
    i = j + 1;
  }
  return pairs;
}

/** Writes a tag value, JSON-quoted when needed. */
function tagText(tag: string): string {
  const colon = tag.indexOf(':');
  const name = colon < 0 ? tag : tag.slice(0, colon);
  const value = colon < 0 ? '' : tag.slice(colon + 1);
  if (value === '') return `${name}:""`;
  // `=` is written as \u003d so that a quoted value never contains the `cf_tags=` marker.
  return /["=,\\\s]/.test(value) ? `${name}:${JSON.stringify(value).replace(/=/g, '\\u003d')}` : `${name}:${value}`;
}

/** The line comment (without `; `) for a record's attributes; empty when there is nothing to say. */
export function formatAttributes(attrs: LineAttributes): string {
  const tags: string[] = [];
  if (attrs.proxied !== undefined) tags.push(`cf-proxied:${attrs.proxied}`);
  if (attrs.flattenCname) tags.push('cf-flatten-cname');
  tags.push(...attrs.tags.map(tagText));
  const comment = attrs.comment ?? '';
  if (tags.length === 0) return comment.includes(MARK) ? `${comment} ${MARK}` : comment;
  return comment === '' ? `${MARK}${tags.join(',')}` : `${comment} ${MARK}${tags.join(',')}`;
}
