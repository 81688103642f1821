import { describe, expect, it } from 'vitest';
import { classicScript } from './classic-script.js';

/** Runs a wrapped script in a fresh global-like object (Node's vm would do too; a function is enough here). */
function run(source: string): Record<string, unknown> {
  const global: Record<string, unknown> = {};
  new Function('globalThis', source)(global);
  return global;
}

describe('classicScript', () => {
  it('makes top-level var and function declarations properties of globalThis, sharing their bindings, with this as the global object', () => {
    const g = run(classicScript(`var count = 1;
      function bump() { count++; return count; }
      if (true) { var inBlock = 'b'; }
      for (var i = 0; i < 2; i++) {}
      var { a, b: [c] } = { a: 'A', b: ['C'] };
      let notGlobal = 1; const alsoNot = 2;
      globalThis.self = this;
      function inner() { var local = 1; }`));
    expect(g.self).toBe(g);
    expect(g.count).toBe(1);
    expect((g.bump as () => number)()).toBe(2);
    expect(g.count).toBe(2);
    g.count = 10;
    expect((g.bump as () => number)()).toBe(11);
    expect([g.inBlock, g.i, g.a, g.c]).toEqual(['b', 2, 'A', 'C']);
    expect(Object.keys(g)).not.toContain('notGlobal');
    expect(Object.keys(g)).not.toContain('alsoNot');
    expect(Object.keys(g)).not.toContain('local');
  });

  it('leaves names the global object has alone, keeps use strict and line numbers', () => {
    const source = `'use strict';\nvar fetch;\nvar mine = 1;\nfunction where() { return new Error('here').stack; }\nglobalThis.seen = fetch;`;
    const wrapped = classicScript(source);
    const g: Record<string, unknown> = { fetch: 'the global fetch' };
    new Function('globalThis', wrapped)(g);
    expect(g.fetch).toBe('the global fetch');
    expect(g.seen).toBe('the global fetch'); // the redeclared var starts with the global's value
    expect(g.mine).toBe(1);
    expect(wrapped.split('\n').findIndex((l) => l.includes('function where'))).toBe(3);
    expect(() => new Function('globalThis', classicScript("'use strict';\nundeclared = 1;"))({})).toThrow(ReferenceError);
  });

  it('leaves a CommonJS module, and a script that does not parse, as they are', () => {
    for (const source of ['module.exports = { fetch() {} };', 'exports.x = 1;', 'var x = ;']) expect(classicScript(source)).toBe(source);
  });
});
