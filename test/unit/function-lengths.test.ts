import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatLength, measureDirectory, measureSource } from '../../scripts/function-lengths.js';

// Issue 20: a function that grows past a screen and a half has more than one job; nested
// functions are measured on their own, so a factory is held to its own lines too.
const MAX_OWN_LINES = 80;

const ownLinesByName = (text: string) => Object.fromEntries(measureSource('x.ts', text).map((f) => [f.name, f.ownLines]));

describe('function lengths in src/', () => {
  it('counts a function without the functions nested inside it, at any depth', () => {
    const text = [
      'function outer() {',
      '  const a = 1;',
      '  const inner = () => {',
      '    const deeper = function () {',
      '      return a;',
      '    };',
      '    return deeper;',
      '  };',
      '  return inner;',
      '}',
    ].join('\n');
    expect(ownLinesByName(text)).toEqual({ outer: 4, inner: 3, deeper: 3 });
  });

  it('measures methods, constructors and accessors, and removes a line shared by two closures once', () => {
    const text = [
      'class A {',
      '  constructor() {',
      '    [1].map((x) => x).filter((x) => x);',
      '  }',
      '  get b() {',
      '    return 1;',
      '  }',
      '  c() {}',
      '}',
    ].join('\n');
    const measured = measureSource('x.ts', text).map((f) => `${f.name}:${f.line}:${f.ownLines}`);
    expect(measured.sort()).toEqual([
      '<callback of [1].map((x) => x).filter>:3:1',
      '<callback of [1].map>:3:1',
      'b:5:3',
      'c:8:1',
      'constructor:2:2',
    ]);
  });

  it(`has no function over ${MAX_OWN_LINES} lines of its own`, () => {
    const offenders = measureDirectory(resolve('src')).filter((f) => f.ownLines > MAX_OWN_LINES);
    expect(offenders.map(formatLength).join('\n')).toBe('');
  });
});
