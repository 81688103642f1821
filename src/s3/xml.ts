/**
 * The little XML the S3 edge needs: writing response documents from plain objects, and reading the small
 * request documents (CompleteMultipartUpload, Delete, CreateBucketConfiguration) into element trees.
 */

const S3_NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';

/** Content of an element: text, a nested element map, or a list (repeated elements of the same name). */
export type XmlValue = string | number | boolean | undefined | null | XmlNode | XmlValue[];
/** Child elements by name, in insertion order; undefined and null values are left out. */
export interface XmlNode {
  [name: string]: XmlValue;
}

/** Escapes text for element content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

function render(name: string, value: XmlValue): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map((v) => render(name, v)).join('');
  if (typeof value === 'object') return `<${name}>${Object.entries(value).map(([k, v]) => render(k, v)).join('')}</${name}>`;
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

/** A whole document: declaration, then the root element (in S3's namespace unless `namespace` is false). */
export function xmlDocument(root: string, content: XmlNode, namespace = false): string {
  const inner = Object.entries(content).map(([k, v]) => render(k, v)).join('');
  const attr = namespace ? ` xmlns="${S3_NAMESPACE}"` : '';
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root}${attr}>${inner}</${root}>`;
}

/** A parsed element: local name (namespace prefix dropped), children and text. */
export interface XmlElement {
  name: string;
  children: XmlElement[];
  text: string;
}

/** Thrown for a document that is not well-formed. */
export class XmlSyntaxError extends Error {}

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_m, e: string) => {
    if (e[0] === '#') {
      const cp = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      if (!(cp >= 0 && cp <= 0x10ffff)) throw new XmlSyntaxError(`bad character reference &${e};`);
      return String.fromCodePoint(cp);
    }
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[e]!;
  });
}

/** Parses a document into its root element. Comments, processing instructions and DOCTYPE-free DTD-less XML only. */
export function parseXml(source: string): XmlElement {
  let i = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const tag = /<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[\w.:-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/y;
  while (i < source.length) {
    const lt = source.indexOf('<', i);
    const text = source.slice(i, lt < 0 ? source.length : lt);
    if (text.length > 0) {
      if (stack.length > 0) stack.at(-1)!.text += decodeEntities(text);
      else if (text.trim() !== '') throw new XmlSyntaxError('text outside the root element');
    }
    if (lt < 0) break;
    if (source.startsWith('<?', lt)) {
      const end = source.indexOf('?>', lt);
      if (end < 0) throw new XmlSyntaxError('unterminated processing instruction');
      i = end + 2;
      continue;
    }
    if (source.startsWith('<!--', lt)) {
      const end = source.indexOf('-->', lt);
      if (end < 0) throw new XmlSyntaxError('unterminated comment');
      i = end + 3;
      continue;
    }
    if (source.startsWith('<![CDATA[', lt)) {
      const end = source.indexOf(']]>', lt);
      if (end < 0 || stack.length === 0) throw new XmlSyntaxError('misplaced CDATA');
      stack.at(-1)!.text += source.slice(lt + 9, end);
      i = end + 3;
      continue;
    }
    tag.lastIndex = lt;
    const m = tag.exec(source);
    if (!m) throw new XmlSyntaxError(`malformed tag at ${lt}`);
    i = tag.lastIndex;
    const name = m[2]!.replace(/^[^:]*:/, '');
    if (m[1]) {
      const open = stack.pop();
      if (!open || open.name !== name) throw new XmlSyntaxError(`unexpected </${name}>`);
      if (stack.length === 0) root = open;
      continue;
    }
    if (root) throw new XmlSyntaxError('more than one root element');
    const el: XmlElement = { name, children: [], text: '' };
    stack.at(-1)?.children.push(el);
    if (m[4]) {
      if (stack.length === 0) root = el;
    } else {
      stack.push(el);
    }
  }
  if (stack.length > 0 || !root) throw new XmlSyntaxError('unterminated document');
  return root;
}

/** The children of `el` named `name`. */
export function childrenNamed(el: XmlElement, name: string): XmlElement[] {
  return el.children.filter((c) => c.name === name);
}

/** The text of the first child named `name`, or undefined. */
export function childText(el: XmlElement, name: string): string | undefined {
  return el.children.find((c) => c.name === name)?.text;
}
