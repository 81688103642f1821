import { describe, expect, it } from 'vitest';
import { parseCopySource } from './copy-source.js';
import { S3Error } from './errors.js';

const refused = (value: string): S3Error => {
  try {
    parseCopySource(value);
  } catch (err) {
    if (err instanceof S3Error) return err;
    throw err;
  }
  throw new Error(`expected ${value} to be refused`);
};

describe('parseCopySource', () => {
  const dir = { bucket: 'src', key: 'dir/a b+c.txt' };

  it('reads every encoding of the same object', () => {
    expect(parseCopySource('src/dir/a%20b%2Bc.txt')).toEqual(dir);
    expect(parseCopySource('/src/dir/a%20b%2Bc.txt')).toEqual(dir);
    expect(parseCopySource('src%2Fdir%2Fa%20b%2Bc.txt')).toEqual(dir);
    expect(parseCopySource('%2Fsrc%2Fdir%2Fa%20b%2Bc.txt')).toEqual(dir);
    // Go's url.QueryEscape (Terraform's AWS provider): the slash encoded, a space as '+'.
    expect(parseCopySource('src%2Fdir%2Fa+b%2Bc.txt')).toEqual(dir);
    expect(parseCopySource('src/plain.txt')).toEqual({ bucket: 'src', key: 'plain.txt' });
  });

  it('decodes once: %25 is a percent sign of the key', () => {
    expect(parseCopySource('src/100%2525')).toEqual({ bucket: 'src', key: '100%25' });
  });

  it('takes the query from the first literal ?; an encoded ? belongs to the key', () => {
    expect(parseCopySource('src/k.txt?versionId=null')).toEqual({ bucket: 'src', key: 'k.txt' });
    expect(parseCopySource('src%2Fk.txt?versionId=null')).toEqual({ bucket: 'src', key: 'k.txt' });
    expect(parseCopySource('src/what%3FversionId%3Dx')).toEqual({ bucket: 'src', key: 'what?versionId=x' });
  });

  it('refuses other versions, other parameters, bad encodings and values naming no object', () => {
    expect(refused('src/k?versionId=abc')).toMatchObject({ code: 'InvalidArgument', message: 'Invalid version id specified', status: 400 });
    expect(refused('src/k?partNumber=1').message).toContain('only versionId');
    expect(refused('src/%E0%A4%A').message).toContain('URL-encoded');
    for (const bad of ['src', 'src/', '/src', '%2Fsrc', '/k', 'src%2F']) {
      expect(refused(bad).message).toContain('sourcebucket/sourcekey');
    }
    expect(refused('src').extra).toEqual({ ArgumentName: 'x-amz-copy-source', ArgumentValue: 'src' });
  });
});
