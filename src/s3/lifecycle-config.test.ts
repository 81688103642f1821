import { describe, expect, it } from 'vitest';
import { lifecycleConfigurationXml, parseLifecycleConfiguration } from './lifecycle-config.js';
import { S3Error } from './errors.js';
import { defaultLifecycleRules, withoutS3Form } from '../store/index.js';

const doc = (...rules: string[]): string => `<LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${rules.map((r) => `<Rule>${r}</Rule>`).join('')}</LifecycleConfiguration>`;
const refusal = (text: string, size?: string): { code: string; status: number; message: string } => {
  try {
    parseLifecycleConfiguration(text, size);
  } catch (err) {
    if (err instanceof S3Error) return { code: err.code, status: err.status, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal');
};
const DAY = 86_400;

describe('parseLifecycleConfiguration', () => {
  it('maps each supported element onto the v4 rules', () => {
    const rules = parseLifecycleConfiguration(doc(
      '<ID>old</ID><Filter><Prefix>2019/</Prefix></Filter><Status>Enabled</Status><Expiration><Date>2024-01-01T00:00:00Z</Date></Expiration>',
      '<ID>ia</ID><Status>Disabled</Status><Transition><Days>30</Days><StorageClass>STANDARD_IA</StorageClass></Transition>',
      '<ID>abort</ID><Prefix>up/</Prefix><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload>',
      '<ID>and</ID><Filter><And><Prefix>logs/</Prefix><ObjectSizeGreaterThan>0</ObjectSizeGreaterThan></And></Filter><Status>Enabled</Status><Expiration><Days>90</Days></Expiration>',
    ), 'all_storage_classes_128K');
    expect(rules.map(withoutS3Form)).toEqual([
      { id: 'old', enabled: true, conditions: { prefix: '2019/' }, deleteObjectsTransition: { condition: { type: 'Date', date: '2024-01-01T00:00:00.000Z' } } },
      { id: 'ia', enabled: false, conditions: { prefix: '' }, storageClassTransitions: [{ condition: { type: 'Age', maxAge: 30 * DAY }, storageClass: 'InfrequentAccess' }] },
      { id: 'abort', enabled: true, conditions: { prefix: 'up/' }, abortMultipartUploadsTransition: { condition: { type: 'Age', maxAge: DAY } } },
      { id: 'and', enabled: true, conditions: { prefix: 'logs/' }, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 90 * DAY } } },
    ]);
  });

  it('reads back the document in the form it was sent', () => {
    const sent = [
      '<ID>a</ID><Filter></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration>',
      '<ID>b</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload>',
      '<ID>c</ID><Prefix>x/</Prefix><Status>Enabled</Status><Expiration><Date>2030-01-01T00:00:00Z</Date></Expiration>',
      '<ID>d</ID><Status>Enabled</Status><Transition><Date>2030-01-01T00:00:00Z</Date><StorageClass>STANDARD_IA</StorageClass></Transition>',
      '<ID>e</ID><Filter><And><Prefix>y/</Prefix><ObjectSizeGreaterThan>0</ObjectSizeGreaterThan></And></Filter><Status>Enabled</Status><Expiration><Days>2</Days></Expiration>',
    ];
    const { body, minimumObjectSize } = lifecycleConfigurationXml(parseLifecycleConfiguration(doc(...sent), 'varies_by_storage_class'));
    expect(body).toBe(`<?xml version="1.0" encoding="UTF-8"?>\n${doc(...sent)}`);
    expect(minimumObjectSize).toBe('varies_by_storage_class');
  });

  it('renders rules set over v4: a prefix filter, whole days rounded up, the default size', () => {
    const { body, minimumObjectSize } = lifecycleConfigurationXml([...defaultLifecycleRules(),
      { id: 'v4', enabled: true, conditions: { prefix: 'p/' }, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 3600 } } }]);
    expect(body).toContain('<Rule><ID>Default Multipart Abort Rule</ID><Filter><Prefix></Prefix></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>7</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>');
    expect(body).toContain('<Rule><ID>v4</ID><Filter><Prefix>p/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>');
    expect(minimumObjectSize).toBe('all_storage_classes_128K');
  });

  it('refuses what the rules cannot say, with S3 errors', () => {
    const ok = '<Status>Enabled</Status><Expiration><Days>1</Days></Expiration>';
    expect(refusal(doc(`<ID>t</ID><Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter>${ok}`))).toMatchObject({ code: 'NotImplemented', status: 501 });
    expect(refusal(doc(`<ID>t</ID><Filter><And><Prefix>a</Prefix><Tag><Key>k</Key><Value>v</Value></Tag></And></Filter>${ok}`)).code).toBe('NotImplemented');
    expect(refusal(doc(`<ID>t</ID><Filter><ObjectSizeGreaterThan>10</ObjectSizeGreaterThan></Filter>${ok}`)).code).toBe('NotImplemented');
    expect(refusal(doc(`<ID>t</ID><Filter><And><Prefix>a</Prefix><ObjectSizeGreaterThan>10</ObjectSizeGreaterThan></And></Filter>${ok}`)).code).toBe('NotImplemented');
    expect(refusal(doc('<ID>t</ID><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration>')).code).toBe('NotImplemented');
    expect(refusal(doc('<ID>t</ID><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration>')).code).toBe('NotImplemented');
    expect(refusal(doc('<ID>t</ID><Status>Enabled</Status><Transition><Days>1</Days><StorageClass>GLACIER</StorageClass></Transition>'))).toMatchObject({ code: 'InvalidStorageClass', status: 400 });
    expect(refusal(doc('<ID>t</ID><Status>Enabled</Status><Expiration><Days>0</Days></Expiration>'))).toMatchObject({ code: 'InvalidArgument', message: "'Days' for Expiration action must be a positive integer" });
    expect(refusal(doc('<ID>t</ID><Status>Enabled</Status><Expiration><Date>2030-01-01T12:00:00Z</Date></Expiration>')).message).toBe("'Date' must be at midnight GMT");
    expect(refusal(doc('<ID>t</ID><Status>Enabled</Status><Expiration><Days>1</Days><Date>2030-01-01T00:00:00Z</Date></Expiration>')).code).toBe('MalformedXML');
    expect(refusal(doc(`<ID>t</ID>${ok}`, `<ID>t</ID>${ok}`)).message).toBe('Rule ID must be unique. Found same ID for more than one rule');
    expect(refusal(doc(`<ID>${'i'.repeat(256)}</ID>${ok}`)).code).toBe('InvalidArgument');
    expect(refusal(doc('<ID>t</ID><Status>On</Status><Expiration><Days>1</Days></Expiration>')).code).toBe('MalformedXML');
    expect(refusal(doc('<ID>t</ID><Status>Enabled</Status>'))).toMatchObject({ code: 'InvalidRequest', message: 'At least one action needs to be specified in a rule' });
    expect(refusal(doc(`<ID>t</ID><Filter><Prefix>a</Prefix></Filter><Prefix>b</Prefix>${ok}`)).code).toBe('MalformedXML');
    expect(refusal(doc(`<ID>t</ID><Bogus/>${ok}`)).code).toBe('MalformedXML');
    expect(refusal('<LifecycleConfiguration></LifecycleConfiguration>').code).toBe('MalformedXML');
    expect(refusal('<LifecycleConfiguration><Rule>').code).toBe('MalformedXML');
    expect(refusal(doc(`<ID>t</ID>${ok}`), 'tiny')).toMatchObject({ code: 'InvalidArgument', status: 400 });
    // The v4 rules' own checks: a transition after the deletion.
    expect(refusal(doc('<ID>t</ID><Status>Enabled</Status><Expiration><Days>10</Days></Expiration><Transition><Days>30</Days><StorageClass>STANDARD_IA</StorageClass></Transition>')).message)
      .toContain('a storage class transition must come before the objects are deleted');
  });

  it('gives a rule without an ID one', () => {
    const [rule] = parseLifecycleConfiguration(doc('<Status>Enabled</Status><Expiration><Days>1</Days></Expiration>'), undefined);
    expect(rule!.id).toMatch(/^[\w-]{16}$/);
  });
});
