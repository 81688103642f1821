/**
 * A Service Worker script run as the classic script it is in production. workerd runs it as a CommonJS module
 * (behind the entry modules, limits-shim.ts), where its top-level `this` is `module.exports` and its top-level
 * `var` and function declarations are the module's own. Wrapped here, its top-level `this` is the global object,
 * and each such declaration is also a property of `globalThis`, read and written through an accessor that shares
 * the declaration's binding (`var count = 0` then `globalThis.count++` changes `count`).
 *
 * Left as they are: a script that names `module` or `exports` (a CommonJS module, or a bundle that checks for
 * one) and one that does not parse (workerd reports its error). A `var` of a name the global object already has
 * (a web API, a binding put there) starts with the global's value, as a classic script's redeclaration does (a
 * later assignment then changes the script's own binding only), and a function declaration of such a name is the
 * script's own. Line numbers are kept (the wrapper's opening shares the script's first line).
 */
import { parse, type Node, type Pattern, type Program, type Statement } from 'acorn';

/** The names a binding pattern declares. */
function patternNames(p: Pattern | null | undefined, out: Set<string>): void {
  if (!p) return;
  switch (p.type) {
    case 'Identifier': out.add(p.name); break;
    case 'ObjectPattern': for (const prop of p.properties) patternNames(prop.type === 'RestElement' ? prop.argument : prop.value as Pattern, out); break;
    case 'ArrayPattern': for (const e of p.elements) patternNames(e, out); break;
    case 'RestElement': patternNames(p.argument, out); break;
    case 'AssignmentPattern': patternNames(p.left, out); break;
    default: break;
  }
}

/** The `var` names a statement declares in the script's own scope (blocks and loops included, functions not). */
function varNames(s: Statement | null | undefined, out: Set<string>): void {
  if (!s) return;
  switch (s.type) {
    case 'VariableDeclaration': if (s.kind === 'var') for (const d of s.declarations) patternNames(d.id, out); break;
    case 'BlockStatement': for (const b of s.body) varNames(b, out); break;
    case 'IfStatement': varNames(s.consequent, out); varNames(s.alternate, out); break;
    case 'ForStatement': if (s.init?.type === 'VariableDeclaration') varNames(s.init, out); varNames(s.body, out); break;
    case 'ForInStatement': case 'ForOfStatement': if (s.left.type === 'VariableDeclaration') varNames(s.left, out); varNames(s.body, out); break;
    case 'WhileStatement': case 'DoWhileStatement': case 'LabeledStatement': case 'WithStatement': varNames(s.body, out); break;
    case 'TryStatement': varNames(s.block, out); varNames(s.handler?.body, out); varNames(s.finalizer, out); break;
    case 'SwitchStatement': for (const c of s.cases) for (const b of c.consequent) varNames(b, out); break;
    default: break;
  }
}

/** True when the script names `module` or `exports` anywhere. */
function namesCommonJs(node: unknown): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(namesCommonJs);
  const n = node as Node & { name?: string };
  if (n.type === 'Identifier' && (n.name === 'module' || n.name === 'exports')) return true;
  return Object.entries(n).some(([k, v]) => k !== 'loc' && typeof v === 'object' && namesCommonJs(v));
}

/** The script's source wrapped to run as a classic script (see the module comment). */
export function classicScript(source: string): string {
  let program: Program;
  try {
    program = parse(source, { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true, allowHashBang: true });
  } catch {
    return source;
  }
  if (namesCommonJs(program)) return source;
  const functions = new Set<string>();
  const vars = new Set<string>();
  for (const s of program.body) {
    if (s.type === 'FunctionDeclaration' && s.id) functions.add(s.id.name);
    else varNames(s as Statement, vars);
  }
  const strict = program.body.some((s) => s.type === 'ExpressionStatement' && (s as { directive?: string }).directive === 'use strict');
  // Checked when the script starts (the global object's names are workerd's, and the bindings put there): a
  // `var` of a name the global object has starts with the global's value, as a classic script's redeclaration.
  const accessor = (n: string): string => `Object.defineProperty(globalThis, ${JSON.stringify(n)}, { get() { return ${n}; }, set(v) { ${n} = v; }, enumerable: true, configurable: true });`;
  const accessors = [
    ...[...vars].filter((n) => !functions.has(n)).map((n) => `if (${JSON.stringify(n)} in globalThis) ${n} = globalThis[${JSON.stringify(n)}]; else ${accessor(n)}`),
    ...[...functions].map((n) => `if (!(${JSON.stringify(n)} in globalThis)) ${accessor(n)}`),
  ];
  const body = source.startsWith('#!') ? `//${source.slice(2)}` : source;
  return `(function () {${strict ? "'use strict';" : ''}${accessors.join('')}${body}\n}).call(globalThis);\n`;
}
