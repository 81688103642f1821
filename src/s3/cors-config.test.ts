import { describe, expect, it } from 'vitest';
import { corsConfigurationXml, parseCorsConfiguration } from './cors-config.js';

const doc = (rules: string): string => `<?xml version="1.0"?><CORSConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${rules}</CORSConfiguration>`;
const failure = (text: string): { code: string; message: string } => {
  try {
    parseCorsConfiguration(text);
  } catch (err) {
    return { code: (err as { code: string }).code, message: (err as Error).message };
  }
  throw new Error('expected a failure');
};

describe('CORSConfiguration', () => {
  it('reads rules in order and writes them back', () => {
    const text = doc(
      '<CORSRule><ID> web </ID><AllowedOrigin>https://*.example.com</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedMethod>HEAD</AllowedMethod>' +
        '<AllowedHeader>*</AllowedHeader><ExposeHeader>ETag</ExposeHeader><MaxAgeSeconds>3000</MaxAgeSeconds></CORSRule>' +
        '<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>PUT</AllowedMethod></CORSRule>',
    );
    const rules = parseCorsConfiguration(text);
    expect(rules).toEqual([
      { id: 'web', allowedOrigins: ['https://*.example.com'], allowedMethods: ['GET', 'HEAD'], allowedHeaders: ['*'], exposeHeaders: ['ETag'], maxAgeSeconds: 3000 },
      { allowedOrigins: ['*'], allowedMethods: ['PUT'], allowedHeaders: [], exposeHeaders: [] },
    ]);
    expect(parseCorsConfiguration(corsConfigurationXml(rules))).toEqual(rules);
    expect(corsConfigurationXml(rules)).toContain('<CORSRule><ID>web</ID><AllowedHeader>*</AllowedHeader><AllowedMethod>GET</AllowedMethod>');
  });

  it('refuses documents outside the schema as MalformedXML', () => {
    for (const text of [
      '', 'not xml', '<CORSConfiguration>', doc(''), '<Other><CORSRule/></Other>', doc('<Rule/>'),
      doc('<CORSRule><AllowedMethod>GET</AllowedMethod></CORSRule>'),
      doc('<CORSRule><AllowedOrigin>*</AllowedOrigin></CORSRule>'),
      doc('<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><Unknown/></CORSRule>'),
      doc('<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><MaxAgeSeconds>-1</MaxAgeSeconds></CORSRule>'),
      doc('<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><MaxAgeSeconds>1</MaxAgeSeconds><MaxAgeSeconds>2</MaxAgeSeconds></CORSRule>'),
    ]) expect(failure(text).code, text).toBe('MalformedXML');
  });

  it('refuses unknown methods, double wildcards, wildcard expose headers and too many rules as S3 does', () => {
    const one = (inner: string) => doc(`<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod>${inner}</CORSRule>`);
    expect(failure(doc('<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>PATCH</AllowedMethod></CORSRule>'))).toEqual({
      code: 'InvalidRequest', message: 'Found unsupported HTTP method in CORS config. Unsupported method is PATCH',
    });
    expect(failure(doc('<CORSRule><AllowedOrigin>https://*.*.test</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule>'))).toEqual({
      code: 'InvalidRequest', message: 'AllowedOrigin "https://*.*.test" can not have more than one wildcard.',
    });
    expect(failure(one('<AllowedHeader>x-*-*</AllowedHeader>')).code).toBe('InvalidRequest');
    expect(failure(one('<ExposeHeader>*</ExposeHeader>')).code).toBe('InvalidRequest');
    expect(failure(one(`<ID>${'i'.repeat(256)}</ID>`)).code).toBe('InvalidArgument');
    const many = doc('<CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule>'.repeat(101));
    expect(failure(many)).toEqual({ code: 'InvalidRequest', message: 'The number of CORS rules should not exceed allowed limit of 100 rules.' });
  });
});
