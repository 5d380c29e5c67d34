/**
 * `npx tsx scripts/function-lengths.ts [--max N] [--top K] [dir]`: the longest functions in src/,
 * measured by their OWN lines, so a long factory is not excused by short closures and a short
 * one is not blamed for the closures it returns.
 *
 * A function's own lines are the lines of its span (from its first token to its last, leading
 * comments excluded) that no function nested inside it covers. Every function-like node counts:
 * declarations, expressions, arrows, methods, constructors and accessors. With --max N the
 * script exits 1 when any function has more than N own lines (test/unit/function-lengths.test.ts
 * holds src/ to 80).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface FunctionLength {
  file: string;
  /** 1-based line of the function's first token. */
  line: number;
  name: string;
  ownLines: number;
}

function isFunctionLike(node: ts.Node): node is ts.SignatureDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** A readable name: the declared one, else what the function is assigned to or keyed by. */
function nameOf(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) {
    return parent.name.getText(source);
  }
  if (ts.isCallExpression(parent)) return `<callback of ${parent.expression.getText(source).slice(0, 40)}>`;
  return '<anonymous>';
}

/** Measures every function-like node of one file. */
export function measureSource(fileName: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  const results: FunctionLength[] = [];

  // Returns the lines the node covers, after recording its own count; the parent removes them
  // from its own span, so nesting at any depth is excluded exactly once (a set, so two closures
  // on one line do not remove that line twice).
  function visitFunction(node: ts.SignatureDeclaration): { first: number; last: number } {
    const first = lineOf(node.getStart(source));
    const last = lineOf(node.getEnd());
    const covered = new Set<number>();
    const collect = (child: ts.Node): void => {
      if (isFunctionLike(child)) {
        const span = visitFunction(child);
        for (let l = span.first; l <= span.last; l++) covered.add(l);
        return;
      }
      ts.forEachChild(child, collect);
    };
    ts.forEachChild(node, collect);
    let own = 0;
    for (let l = first; l <= last; l++) if (!covered.has(l)) own++;
    results.push({ file: fileName, line: first + 1, name: nameOf(node, source), ownLines: own });
    return { first, last };
  }

  const walk = (node: ts.Node): void => {
    if (isFunctionLike(node)) visitFunction(node);
    else ts.forEachChild(node, walk);
  };
  walk(source);
  return results;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every function under `dir`, longest first; file names relative to `root`. */
export function measureDirectory(dir: string, root = process.cwd()): FunctionLength[] {
  return tsFiles(dir)
    .flatMap((path) => measureSource(relative(root, path), readFileSync(path, 'utf8')))
    .sort((a, b) => b.ownLines - a.ownLines || a.file.localeCompare(b.file) || a.line - b.line);
}

export function formatLength(f: FunctionLength): string {
  return `${f.file}:${f.line} ${f.name} ${f.ownLines}`;
}

function main(argv: string[]): number {
  let max: number | undefined;
  let top = 15;
  let dir = 'src';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--max') max = Number(argv[++i]);
    else if (arg === '--top') top = Number(argv[++i]);
    else if (arg !== undefined) dir = arg;
  }
  if (max !== undefined && !Number.isInteger(max)) {
    console.error('--max needs a whole number');
    return 2;
  }
  const lengths = measureDirectory(resolve(dir));
  for (const f of lengths.slice(0, top)) console.log(formatLength(f));
  if (max === undefined) return 0;
  const over = lengths.filter((f) => f.ownLines > max);
  if (over.length > 0) {
    console.error(`${over.length} function(s) over ${max} own lines`);
    return 1;
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
