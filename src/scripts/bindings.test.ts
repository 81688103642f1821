import { describe, expect, it } from 'vitest';
import { bindingView, runtimeBinding, validateBindings, type BindingContext, type StoredBinding } from './bindings.js';

const ctx = (over: Partial<BindingContext> = {}): BindingContext => ({
  previous: null,
  keepTypes: undefined,
  seal: (name, text) => `sealed(${name}:${text})`,
  bucketExists: async (name) => name === 'real',
  ...over,
});

const previous: StoredBinding[] = [
  { type: 'plain_text', name: 'OLD_VAR', text: 'v' },
  { type: 'secret_text', name: 'TOKEN', sealed: 'sealed(TOKEN:t)' },
  { type: 'r2_bucket', name: 'B', bucket_name: 'real' },
];

describe('bindings', () => {
  it('validates every supported type and seals secrets', async () => {
    const out = await validateBindings([
      { type: 'r2_bucket', name: 'B', bucket_name: 'real', jurisdiction: 'default' },
      { type: 'store_bucket', name: 'S', bucket_name: 'real' },
      { type: 'plain_text', name: 'P', text: 'p' },
      { type: 'secret_text', name: 'K', text: 'k' },
      { type: 'json', name: 'J', json: { a: [1] } },
    ], ctx());
    expect(out).toEqual([
      { type: 'r2_bucket', name: 'B', bucket_name: 'real' },
      { type: 'r2_bucket', name: 'S', bucket_name: 'real' },
      { type: 'plain_text', name: 'P', text: 'p' },
      { type: 'secret_text', name: 'K', sealed: 'sealed(K:k)' },
      { type: 'json', name: 'J', json: { a: [1] } },
    ]);
    expect(out.map(bindingView)).toContainEqual({ name: 'K', type: 'secret_text' });
    expect(runtimeBinding(out[3]!, (_n, sealed) => sealed.replace(/^sealed\(K:(.*)\)$/, '$1'))).toEqual({ type: 'secret_text', name: 'K', text: 'k' });
  });

  it('reports every problem of a body at once, naming each binding', async () => {
    const err = await validateBindings([
      { type: 'kv_namespace', name: 'KV' },
      { type: 'd1', name: 'DB', id: 'x' },
      { type: 'r2_bucket', name: 'B', bucket_name: 'missing' },
      { type: 'plain_text', name: 'BIG', text: 'x'.repeat(6000) },
      { name: 'NOTYPE' },
      'nope',
    ], ctx()).catch((e: unknown) => e as Error);
    expect(err).toMatchObject({ code: 10021 });
    for (const part of ['binding KV of type kv_namespace is not supported', 'binding DB of type d1 is not supported', 'bucket "missing"', 'binding BIG of type plain_text is larger', 'binding NOTYPE needs a "type"', 'bindings[5] must be an object']) {
      expect((err as Error).message).toContain(part);
    }
  });

  it('carries secrets over from the latest version unless named or keep_bindings says otherwise', async () => {
    expect(await validateBindings([{ type: 'plain_text', name: 'NEW', text: 'n' }], ctx({ previous }))).toEqual([
      { type: 'plain_text', name: 'NEW', text: 'n' },
      { type: 'secret_text', name: 'TOKEN', sealed: 'sealed(TOKEN:t)' },
    ]);
    expect(await validateBindings([{ type: 'plain_text', name: 'TOKEN', text: 'now plain' }], ctx({ previous }))).toEqual([{ type: 'plain_text', name: 'TOKEN', text: 'now plain' }]);
    expect(await validateBindings([], ctx({ previous, keepTypes: ['plain_text', 'r2_bucket'] }))).toEqual([previous[0], previous[2]]);
    expect(await validateBindings([], ctx({ previous, keepTypes: [] }))).toEqual([]);
  });

  it('inherit takes the named binding of the latest version', async () => {
    expect(await validateBindings([{ type: 'inherit', name: 'B' }, { type: 'inherit', name: 'V2', old_name: 'OLD_VAR' }], ctx({ previous, keepTypes: [] }))).toEqual([
      { type: 'r2_bucket', name: 'B', bucket_name: 'real' },
      { type: 'plain_text', name: 'V2', text: 'v' },
    ]);
    await expect(validateBindings([{ type: 'inherit', name: 'NONE' }], ctx({ previous }))).rejects.toThrow('no binding named NONE');
  });

  it('refuses a bindings value that is not an array', async () => {
    await expect(validateBindings({}, ctx())).rejects.toThrow('metadata.bindings must be an array');
  });
});
