/**
 * Dependencies point one way: every import between parts of src/ is one that
 * dependency-rules.json allows. Read with the TypeScript compiler, so `import type` (erased
 * at build) is told from an import that loads the module, and re-exports and dynamic
 * `import()` count too. A violation names the file, the line and the import.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import rules from '../../dependency-rules.json' with { type: 'json' };

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const src = join(root, 'src');

type Area = keyof typeof rules.areas;

interface Import {
  file: string;
  line: number;
  specifier: string;
  /** The imported file, relative to src/, with `/` and its .ts name. */
  target: string;
  typeOnly: boolean;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const toSrcPath = (path: string) => relative(src, path).split(sep).join('/');

/** The project's own imports of one file: relative specifiers only (packages are no part of the layering). */
function importsOf(path: string): Import[] {
  const text = readFileSync(path, 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true);
  const found: Import[] = [];
  const add = (node: ts.Node, specifier: ts.Expression | undefined, typeOnly: boolean) => {
    if (!specifier || !ts.isStringLiteralLike(specifier) || !specifier.text.startsWith('.')) return;
    const target = toSrcPath(resolve(dirname(path), specifier.text)).replace(/\.js$/, '.ts');
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    found.push({ file: toSrcPath(path), line, specifier: specifier.text, target, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      // `import { type A }` still loads the module under verbatimModuleSyntax: only `import type` is erased.
      add(node, node.moduleSpecifier, node.importClause?.isTypeOnly ?? false);
    } else if (ts.isExportDeclaration(node)) {
      add(node, node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal as ts.Expression, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The area a file of src/ belongs to (a folder, or one of the root files it names). */
function areaOf(srcPath: string): Area | null {
  for (const [area, members] of Object.entries(rules.areas) as [Area, string[]][]) {
    if (members.some((member) => (member.endsWith('/') ? srcPath.startsWith(member) : srcPath === member))) return area;
  }
  return null;
}

/** Whether a list of targets (areas, or single files of src/) covers this file. */
function covers(targets: string[], target: string): boolean {
  return targets.some((allowed) => allowed === '*' || allowed === target || allowed === areaOf(target));
}

/** Every import of src/ that the rules forbid, one line each. */
function violations(): string[] {
  const found: string[] = [];
  for (const path of sourceFiles(src)) {
    for (const edge of importsOf(path)) {
      const from = areaOf(edge.file);
      const to = areaOf(edge.target);
      if (from === null || to === null) {
        found.push(`${edge.file}:${edge.line} imports '${edge.specifier}': ${from === null ? edge.file : edge.target} is in no area`);
        continue;
      }
      if (from === to) continue;
      const rule = rules.rules[from];
      if (covers(rule.values, edge.target)) continue;
      if (edge.typeOnly && covers(rule.types, edge.target)) continue;
      const allowed = covers(rule.types, edge.target) ? 'only `import type`' : 'nothing';
      found.push(
        `${edge.file}:${edge.line} (${from} -> ${to}) imports '${edge.specifier}'${edge.typeOnly ? ' (types)' : ''}: ${from} may take ${allowed} from ${edge.target}`,
      );
    }
  }
  return found;
}

describe('dependency directions', () => {
  it('every file of src/ belongs to one area of dependency-rules.json', () => {
    const unplaced = sourceFiles(src)
      .map(toSrcPath)
      .filter((file) => areaOf(file) === null);
    expect(unplaced).toEqual([]);
  });

  it('every rule names areas or files that exist', () => {
    const files = new Set(sourceFiles(src).map(toSrcPath));
    const unknown = Object.values(rules.rules)
      .flatMap((rule) => [...rule.values, ...rule.types])
      .filter((target) => target !== '*' && !(target in rules.areas) && !files.has(target));
    expect(unknown).toEqual([]);
  });

  it('reads value, type-only, re-exported and dynamic imports', () => {
    const edges = importsOf(join(src, 'provider', 'index.ts'));
    expect(edges.map((edge) => edge.target)).toContain('provider/client.ts');
    const db = importsOf(join(src, 'db', 'import.repo.ts'));
    expect(db.find((edge) => edge.target === 'core/import-diff.ts')?.typeOnly).toBe(true);
  });

  it('only the fleet database adapter (src/fleet/) loads pg, the PostgreSQL driver', () => {
    const loadsPg = /^\s*import\s+(?!type\b)[^;]*?from\s+'pg'|import\('pg'\)/m;
    const outside = sourceFiles(src)
      .map(toSrcPath)
      .filter((file) => !file.startsWith('fleet/') && loadsPg.test(readFileSync(join(src, file), 'utf8')));
    expect(outside).toEqual([]);
  });

  it('imports only what dependency-rules.json allows', () => {
    const found = violations();
    expect(found, `${found.length} imports against the dependency directions:\n  ${found.join('\n  ')}\n`).toEqual([]);
  });
});
