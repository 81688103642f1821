/** Differential steps: ranges in object and Headers form, client and server checks, empty objects. */
/* eslint-disable @typescript-eslint/no-explicit-any */
import { DIFF } from './differences.js';
import { step, type StepGroup } from './step.js';


/** 10039 where the simulator crashes (reference §5.3). */
const crashIs10039 = {
  difference: DIFF.rangeCrash,
  expected: (mf: any) => {
    if (mf.error?.message !== 'get: Unspecified error (0)') throw new Error(`simulator answered ${JSON.stringify(mf)}`);
    return { error: { name: 'Error', message: 'get: The requested range is not satisfiable (10039)' } };
  },
};

/** Ranges group, on the 10-byte object "0123456789" and an empty object. */
export const rangeSteps: StepGroup = {
  name: 'range',
  steps: [
    step('put the 10-byte object', async (b) => { await b.put('empty', ''); return b.put('r', '0123456789'); }),
    step('{offset:3}', async (b) => { const o = await b.get('r', { range: { offset: 3 } }); return { range: o.range, text: await o.text() }; }),
    step('{length:42} is clamped', async (b) => { const o = await b.get('r', { range: { length: 42 } }); return { range: o.range, text: await o.text() }; }),
    step('{offset:9,length:5}', async (b) => { const o = await b.get('r', { range: { offset: 9, length: 5 } }); return { range: o.range, text: await o.text() }; }),
    step('{offset:3,length:2}', async (b) => { const o = await b.get('r', { range: { offset: 3, length: 2 } }); return { o, text: await o.text() }; }),
    step('{suffix:3}', async (b) => { const o = await b.get('r', { range: { suffix: 3 } }); return { range: o.range, text: await o.text() }; }),
    step('{suffix:42} is the whole object', async (b) => { const o = await b.get('r', { range: { suffix: 42 } }); return { range: o.range, text: await o.text() }; }),
    step('number-like strings are coerced', async (b) => { const o = await b.get('r', { range: { offset: '3', length: '2' } }); return { range: o.range, text: await o.text() }; }),
    step('offset undefined means absent', async (b) => { const o = await b.get('r', { range: { offset: undefined, length: 2 } }); return { range: o.range, text: await o.text() }; }),
    step('{offset:10} is unsatisfiable', (b) => b.get('r', { range: { offset: 10 } })),
    step('{offset:11} is unsatisfiable', (b) => b.get('r', { range: { offset: 11 } })),
    step('{length:0} is unsatisfiable', (b) => b.get('r', { range: { length: 0 } })),
    step('{offset:0,length:0} is unsatisfiable', (b) => b.get('r', { range: { offset: 0, length: 0 } })),
    step('{suffix:0} is unsatisfiable', (b) => b.get('r', { range: { suffix: 0 } })),
    step('{offset:10,length:1} (simulator crash)', (b) => b.get('r', { range: { offset: 10, length: 1 } }), crashIs10039),
    step('offset -1', (b) => b.get('r', { range: { offset: -1 } })),
    step('offset 1.5', (b) => b.get('r', { range: { offset: 1.5 } })),
    step('offset NaN', (b) => b.get('r', { range: { offset: NaN } })),
    step('length -1', (b) => b.get('r', { range: { length: -1 } })),
    step('length 1.5', (b) => b.get('r', { range: { length: 1.5 } })),
    step('suffix with offset', (b) => b.get('r', { range: { suffix: 2, offset: 1 } })),
    step('suffix with length', (b) => b.get('r', { range: { suffix: 2, length: 1 } })),
    step('suffix -1', (b) => b.get('r', { range: { suffix: -1 } })),
    step('suffix 1.5', (b) => b.get('r', { range: { suffix: 1.5 } })),
    step('Range: bytes=1-2', async (b) => { const o = await b.get('r', { range: new Headers({ range: 'bytes=1-2' }) }); return { range: o.range, text: await o.text() }; }),
    step('Range: bytes=5-', async (b) => { const o = await b.get('r', { range: new Headers({ range: 'bytes=5-' }) }); return { range: o.range, text: await o.text() }; }),
    step('Range: bytes=-3', async (b) => { const o = await b.get('r', { range: new Headers({ range: 'bytes=-3' }) }); return { range: o.range, text: await o.text() }; }),
    step('Range: bytes=-20 is the whole object', async (b) => { const o = await b.get('r', { range: new Headers({ range: 'bytes=-20' }) }); return { range: o.range, text: await o.text() }; }),
    step('Range: bytes=8-30 is clamped', async (b) => { const o = await b.get('r', { range: new Headers({ range: 'bytes=8-30' }) }); return { range: o.range, text: await o.text() }; }),
    step('Range: bytes=20-30 gives the whole object', async (b) => { const o = await b.get('r', { range: new Headers({ range: 'bytes=20-30' }) }); return { range: o.range, text: await o.text() }; }),
    step('Range: bytes=6-3 gives the whole object', async (b) => { const o = await b.get('r', { range: new Headers({ range: 'bytes=6-3' }) }); return { range: o.range, text: await o.text() }; }),
    step('Range: multi-range gives the whole object', async (b) => { const o = await b.get('r', { range: new Headers({ range: 'bytes=0-1,4-5' }) }); return { range: o.range, text: await o.text() }; }),
    step('Range: other units give the whole object', async (b) => { const o = await b.get('r', { range: new Headers({ range: 'items=0-1' }) }); return { range: o.range, text: await o.text() }; }),
    step('Range: garbage gives the whole object', async (b) => { const o = await b.get('r', { range: new Headers({ range: 'foo' }) }); return { range: o.range, text: await o.text() }; }),
    step('Headers without Range give the whole object', async (b) => { const o = await b.get('r', { range: new Headers({ 'x-nothing': '1' }) }); return { range: o.range, text: await o.text() }; }),
    step('head reports the full range', (b) => b.head('r')),
    step('a failed precondition reports the full range', (b) => b.get('r', { onlyIf: { etagMatches: 'x' }, range: { offset: 2, length: 2 } })),
    step('an empty object reads whole', async (b) => { const o = await b.get('empty'); return { range: o.range, text: await o.text() }; }),
    step('an empty object with {offset:0}', (b) => b.get('empty', { range: { offset: 0 } })),
    step('an empty object with {suffix:1}', (b) => b.get('empty', { range: { suffix: 1 } })),
    step('an empty object with {length:1} (simulator crash)', (b) => b.get('empty', { range: { length: 1 } }), crashIs10039),
  ],
};
