/**
 * The README, the changelog and docs/ link to each other by relative paths and #anchors. A section moved or
 * renamed must not leave a reader at a dead link: every relative link in README.md, CHANGELOG.md and
 * docs/**\/*.md must name a file that exists and, with an #anchor, a heading that file has.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);

function markdownFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** Text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of markdown.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = (heading[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** Every relative link target of a markdown file: [text](target) and [text]: target. */
function links(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? '');
  const reference = [...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1] ?? '');
  return [...inline, ...reference].filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** The links of one file that lead nowhere, each with why. */
function brokenLinks(file: string): string[] {
  const problems: string[] = [];
  for (const target of links(readFileSync(file, 'utf8'))) {
    const [path, anchor] = target.split('#', 2) as [string, string | undefined];
    const destination = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    const where = `${relative(ROOT, file)}: ${target}`;
    if (!existsSync(destination)) {
      problems.push(`${where} (no file ${relative(ROOT, destination)})`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (!destination.endsWith('.md')) {
      problems.push(`${where} (an anchor into a file that is no markdown)`);
      continue;
    }
    if (!anchors(readFileSync(destination, 'utf8')).has(decodeURIComponent(anchor))) {
      problems.push(`${where} (no heading #${anchor} in ${relative(ROOT, destination)})`);
    }
  }
  return problems;
}

describe('links between the README and docs/', () => {
  const files = [join(ROOT, 'README.md'), join(ROOT, 'CHANGELOG.md'), ...markdownFiles(join(ROOT, 'docs'))];

  it('finds the documents and their links', () => {
    expect(files.length).toBeGreaterThan(5);
    expect(files.reduce((n, file) => n + links(readFileSync(file, 'utf8')).length, 0)).toBeGreaterThan(10);
  });

  it('spells anchors as GitHub does', () => {
    const headings = anchors('# `wpp doctor`\n## The sandbox\'s choices where the spec says "not shown"\n## Tested\n## Tested\n');
    expect([...headings]).toEqual(['wpp-doctor', 'the-sandboxs-choices-where-the-spec-says-not-shown', 'tested', 'tested-1']);
  });

  it('every relative link names an existing file and, with an anchor, one of its headings', () => {
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });
});
