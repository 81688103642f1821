/**
 * The `CORSConfiguration` document of PutBucketCors/GetBucketCors, validated as S3 validates it
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketCors.html): 1 to 100 `CORSRule`s, each with at
 * least one `AllowedOrigin` and `AllowedMethod`; methods among GET, PUT, HEAD, POST, DELETE (`InvalidRequest`
 * otherwise); at most one `*` in an origin or an allowed header; no `*` in an exposed header; `MaxAgeSeconds`
 * a whole number; `ID` up to 255 characters. Anything not well-formed or not in the schema is `MalformedXML`.
 */
import type { BucketCorsRule } from '../store/index.js';
import { S3Error, s3Error } from './errors.js';
import { parseXml, xmlDocument, XmlSyntaxError, type XmlElement } from './xml.js';

/** Methods a CORS rule may allow. */
export const CORS_METHODS = new Set(['GET', 'PUT', 'HEAD', 'POST', 'DELETE']);
const MAX_RULES = 100;
const MAX_ID_LENGTH = 255;
const RULE_ELEMENTS = new Set(['ID', 'AllowedOrigin', 'AllowedMethod', 'AllowedHeader', 'ExposeHeader', 'MaxAgeSeconds']);

const invalid = (message: string): S3Error => new S3Error('InvalidRequest', message, 400);
const wildcards = (s: string): number => s.split('*').length - 1;

/** One `CORSRule` element as a rule; throws MalformedXML or InvalidRequest. */
function parseRule(el: XmlElement): BucketCorsRule {
  const values = (name: string): string[] => el.children.filter((c) => c.name === name).map((c) => c.text.trim());
  if (el.children.some((c) => !RULE_ELEMENTS.has(c.name))) throw s3Error('MalformedXML', 400);
  const [ids, origins, methods, headers, exposed, maxAges] = ['ID', 'AllowedOrigin', 'AllowedMethod', 'AllowedHeader', 'ExposeHeader', 'MaxAgeSeconds'].map(values) as [string[], string[], string[], string[], string[], string[]];
  if (origins.length === 0 || methods.length === 0 || ids.length > 1 || maxAges.length > 1) throw s3Error('MalformedXML', 400);
  for (const m of methods) if (!CORS_METHODS.has(m)) throw invalid(`Found unsupported HTTP method in CORS config. Unsupported method is ${m}`);
  for (const o of origins) if (wildcards(o) > 1) throw invalid(`AllowedOrigin "${o}" can not have more than one wildcard.`);
  for (const h of headers) if (wildcards(h) > 1) throw invalid(`AllowedHeader "${h}" can not have more than one wildcard.`);
  for (const h of exposed) if (h.includes('*')) throw invalid(`ExposeHeader "${h}" contains wildcard. We currently do not support wildcard for ExposeHeader.`);
  if (ids[0] !== undefined && ids[0].length > MAX_ID_LENGTH) throw new S3Error('InvalidArgument', `ID length should not exceed allowed limit of ${MAX_ID_LENGTH}`, 400);
  if (maxAges[0] !== undefined && !/^\d{1,9}$/.test(maxAges[0])) throw s3Error('MalformedXML', 400);
  return {
    ...(ids[0] !== undefined ? { id: ids[0] } : {}),
    allowedOrigins: origins,
    allowedMethods: methods,
    allowedHeaders: headers,
    exposeHeaders: exposed,
    ...(maxAges[0] !== undefined ? { maxAgeSeconds: Number(maxAges[0]) } : {}),
  };
}

/** The rules of a PutBucketCors body. */
export function parseCorsConfiguration(text: string): BucketCorsRule[] {
  let doc: XmlElement;
  try {
    doc = parseXml(text);
  } catch (err) {
    if (err instanceof XmlSyntaxError) throw s3Error('MalformedXML', 400);
    throw err;
  }
  if (doc.name !== 'CORSConfiguration' || doc.children.some((c) => c.name !== 'CORSRule')) throw s3Error('MalformedXML', 400);
  if (doc.children.length === 0) throw s3Error('MalformedXML', 400);
  if (doc.children.length > MAX_RULES) throw invalid(`The number of CORS rules should not exceed allowed limit of ${MAX_RULES} rules.`);
  return doc.children.map(parseRule);
}

/** The GetBucketCors document of stored rules. */
export function corsConfigurationXml(rules: BucketCorsRule[]): string {
  return xmlDocument('CORSConfiguration', {
    CORSRule: rules.map((r) => ({
      ID: r.id,
      AllowedHeader: r.allowedHeaders,
      AllowedMethod: r.allowedMethods,
      AllowedOrigin: r.allowedOrigins,
      ExposeHeader: r.exposeHeaders,
      MaxAgeSeconds: r.maxAgeSeconds,
    })),
  }, true);
}
