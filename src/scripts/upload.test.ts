import { describe, expect, it } from 'vitest';
import { parseUpload } from './upload.js';

const TODAY = '2025-06-01';
const file = (content: string, name: string, type: string) => new File([content], name, { type });

describe('script uploads', () => {
  it('reads a JSON metadata part and types modules by content type, byte for byte', async () => {
    const form = new FormData();
    form.set('metadata', JSON.stringify({ main_module: 'a.js', compatibility_date: '2024-01-01', compatibility_flags: ['x', 'x', 'y'], bindings: [{ type: 'plain_text', name: 'A', text: 'b' }], annotations: { 'workers/message': 'm' } }));
    form.set('a.js', file('export default {}', 'a.js', 'application/javascript+module'));
    form.set('c.cjs', file('module.exports = 1', 'c.cjs', 'application/javascript'));
    form.set('t.txt', file('é', 't.txt', 'text/plain; charset=utf-8'));
    form.set('d.bin', new File([new Uint8Array([0, 255])], 'd.bin', { type: 'application/octet-stream' }));
    form.set('w.wasm', new File([new Uint8Array([0, 97, 115, 109])], 'w.wasm', { type: 'application/wasm' }));
    form.set('j.json', file('{"a":1}', 'j.json', 'application/json'));
    form.set('a.js.map', file('{}', 'a.js.map', 'application/source-map'));
    const up = await parseUpload(form, TODAY);
    expect(up.mainModule).toBe('a.js');
    expect(up.compatibilityFlags).toEqual(['x', 'y']);
    expect(up.annotations).toEqual({ 'workers/message': 'm' });
    expect(up.modules.map((m) => [m.name, m.type])).toEqual([['a.js', 'esm'], ['c.cjs', 'commonjs'], ['t.txt', 'text'], ['d.bin', 'data'], ['w.wasm', 'wasm'], ['j.json', 'json'], ['a.js.map', 'sourcemap']]);
    expect(up.modules.find((m) => m.name === 't.txt')!.content).toEqual(new Uint8Array([0xc3, 0xa9]));
    expect(up.modules.find((m) => m.name === 'd.bin')!.content).toEqual(new Uint8Array([0, 255]));
  });

  it("rebuilds the SDK's bracketed metadata and names files[] parts by their file name", async () => {
    const form = new FormData();
    form.append('metadata[main_module]', 'main.js');
    form.append('metadata[compatibility_flags][]', 'nodejs_compat');
    form.append('metadata[compatibility_flags][]', 'other');
    for (const [type, name, text] of [['plain_text', 'A', '1'], ['secret_text', 'B', '2']]) {
      form.append('metadata[bindings][][type]', type!);
      form.append('metadata[bindings][][name]', name!);
      form.append('metadata[bindings][][text]', text!);
    }
    form.append('files[]', file('export default {}', 'main.js', 'application/javascript+module'));
    form.append('files[]', file('x', 'lib/x.txt', 'text/plain'));
    const up = await parseUpload(form, TODAY);
    expect(up.mainModule).toBe('main.js');
    expect(up.compatibilityFlags).toEqual(['nodejs_compat', 'other']);
    expect(up.bindings).toEqual([{ type: 'plain_text', name: 'A', text: '1' }, { type: 'secret_text', name: 'B', text: '2' }]);
    expect(up.modules.map((m) => m.name)).toEqual(['main.js', 'lib/x.txt']);
  });

  it('reads a Service Worker upload (body_part, an application/javascript script) and the limits, the SDK\'s bracketed ones too', async () => {
    const form = new FormData();
    form.set('metadata', JSON.stringify({ body_part: 'worker.js', limits: { cpu_ms: 50, subrequests: 20 } }));
    form.set('worker.js', file("addEventListener('fetch', (e) => e.respondWith(new Response('hi')))", 'worker.js', 'application/javascript'));
    const up = await parseUpload(form, TODAY);
    expect(up).toMatchObject({ mainModule: 'worker.js', limits: { cpu_ms: 50, subrequests: 20 } });
    expect(up.modules.map((m) => m.type)).toEqual(['commonjs']);
    const sdk = new FormData();
    sdk.append('metadata[main_module]', 'a.js');
    sdk.append('metadata[limits][cpu_ms]', '30');
    sdk.append('files[]', file('export default {}', 'a.js', 'application/javascript+module'));
    expect((await parseUpload(sdk, TODAY)).limits).toEqual({ cpu_ms: 30 });
  });

  it.each([
    [{}, 'metadata.main_module'],
    [{ body_part: 'a.js' }, 'The Service Worker script "a.js" must have content type application/javascript'],
    [{ body_part: 'b.js' }, 'metadata.body_part must name one of the uploaded parts'],
    [{ main_module: 'a.js', limits: { cpu_ms: 0 } }, 'metadata.limits.cpu_ms must be a whole number from 1 to 300000, got 0'],
    [{ main_module: 'a.js', limits: { subrequests: 1.5 } }, 'metadata.limits.subrequests must be a whole number from 1 to 10000000, got 1.5'],
    [{ main_module: 'a.js', limits: { subrequests: 10_000_001 } }, 'metadata.limits.subrequests must be a whole number from 1 to 10000000'],
    [{ main_module: 'a.js', limits: { memory_mb: 5 } }, 'metadata.limits.memory_mb is not a limit Stratus knows'],
    [{ main_module: 'a.js', limits: [50] }, 'metadata.limits must be an object'],
    [{ main_module: 'a.js', compatibility_date: '2025-13-01' }, 'Invalid compatibility_date'],
    [{ main_module: 'a.js', compatibility_date: '2025-06-02' }, 'future'],
    [{ main_module: 'a.js', compatibility_flags: 'x' }, 'compatibility_flags must be an array of strings'],
    [{ main_module: 'a.js', annotations: { 'workers/tag': 'x'.repeat(26) } }, 'workers/tag'],
    [{ main_module: 'b.js' }, 'No such module "b.js"'],
  ])('refuses metadata %j', async (metadata, message) => {
    const form = new FormData();
    form.set('metadata', JSON.stringify(metadata));
    form.set('a.js', file('export default {}', 'a.js', 'application/javascript+module'));
    await expect(parseUpload(form, TODAY)).rejects.toMatchObject({ code: 10021, message: expect.stringContaining(message) });
  });

  it('refuses a non-JavaScript main module, an unknown content type and a string module part', async () => {
    const form = new FormData();
    form.set('metadata', JSON.stringify({ main_module: 't.txt' }));
    form.set('t.txt', file('x', 't.txt', 'text/plain'));
    await expect(parseUpload(form, TODAY)).rejects.toThrow('must be JavaScript');
    form.set('metadata', JSON.stringify({ main_module: 't.txt' }));
    form.set('x.bin', file('x', 'x.bin', 'image/png'));
    await expect(parseUpload(form, TODAY)).rejects.toThrow('content type "image/png"');
    const bad = new FormData();
    bad.set('metadata', '{"main_module":"a.js"');
    await expect(parseUpload(bad, TODAY)).rejects.toThrow('not valid JSON');
    const ctl = new FormData();
    ctl.set('metadata', JSON.stringify({ main_module: 'a.js' }));
    ctl.set('a.js', file('export default {}', 'a.js', 'application/javascript+module'));
    ctl.set('b\u0000.js', file('x', 'b.js', 'application/javascript+module'));
    await expect(parseUpload(ctl, TODAY)).rejects.toThrow('without control characters');
    const str = new FormData();
    str.set('metadata', JSON.stringify({ main_module: 'a.js' }));
    str.set('a.js', 'export default {}');
    await expect(parseUpload(str, TODAY)).rejects.toThrow('must be a file part');
  });

  it('defaults the compatibility date when none is given', async () => {
    const form = new FormData();
    form.set('metadata', JSON.stringify({ main_module: 'a.js' }));
    form.set('a.js', file('export default {}', 'a.js', 'application/javascript+module'));
    expect((await parseUpload(form, TODAY)).compatibilityDate).toBe('2021-11-02');
  });
});
