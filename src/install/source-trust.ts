/**
 * The launcher `wpp install` writes runs this Node.js and this package as root on every hook,
 * panel page and cPanel update. Whoever may change either, or a folder above them (and so
 * rename what is in it), may run anything as root: a checkout in a home folder, a Node.js from
 * nvm, a folder with group write. So an install is refused unless every one of those paths
 * belongs to root and neither group nor others may write it.
 */
import { lstatSync, readdirSync, readlinkSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { InstallSource } from './common.js';

export interface SourceTrustDeps {
  /** The owner every path must have: root (0) on a server; tests pass their own uid. */
  ownerUid: number;
  /** lstat (never following a link); tests present the folders above their tree as a server's. */
  lstat: (path: string) => Stats;
}

export const serverTrust = (): SourceTrustDeps => ({ ownerUid: 0, lstat: (path) => lstatSync(path) });

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');
const isInside = (path: string, folder: string) => path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);

/** Every problem with the paths root would run, one line each; empty when the source can be installed. */
export function sourceTrustProblems(source: Pick<InstallSource, 'nodePath' | 'packageRoot'>, deps: SourceTrustDeps): string[] {
  const problems = new Set<string>();
  const checked = new Set<string>();

  const stat = (path: string): Stats | undefined => {
    try {
      return deps.lstat(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };

  /**
   * One path: its owner, and its mode unless it is a link (a link's own mode means nothing).
   * A folder above (`above`) may be writable by all when it is root's and sticky (/tmp, 1777):
   * others may add entries there, but not rename or remove one they do not own.
   */
  const checkOne = (path: string, info: Stats, above = false) => {
    if (info.uid !== deps.ownerUid)
      problems.add(`${path} is owned by uid ${info.uid}, not ${deps.ownerUid === 0 ? 'root' : `uid ${deps.ownerUid}`}`);
    const stickyFolderAbove = above && info.isDirectory() && (info.mode & 0o1000) !== 0;
    if (!info.isSymbolicLink() && !stickyFolderAbove && (info.mode & 0o022) !== 0)
      problems.add(`${path} is writable by group or others (mode ${octal(info.mode)})`);
  };

  /** `path` and every folder above it; a link on the way is followed to where it points, which is checked too. */
  const checkChain = (path: string, depth = 0): void => {
    if (depth > 40) {
      problems.add(`${path}: too many links`);
      return;
    }
    for (let at = path; ; at = dirname(at)) {
      if (!checked.has(at)) {
        checked.add(at);
        const info = stat(at);
        if (info) {
          checkOne(at, info, at !== path);
          if (info.isSymbolicLink()) followLink(at, depth);
        }
      }
      if (dirname(at) === at) break;
    }
  };

  const followLink = (link: string, depth: number) => {
    const target = readlinkSync(link);
    checkChain(isAbsolute(target) ? target : resolve(dirname(link), target), depth + 1);
  };

  /** Everything in the package, to the last file: any of it may be loaded by the code root runs. */
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      const info = stat(path);
      if (!info) continue;
      checked.add(path);
      checkOne(path, info);
      if (info.isSymbolicLink()) {
        const target = readlinkSync(path);
        const resolved = isAbsolute(target) ? target : resolve(folder, target);
        // A link within the package is checked where it points by the walk itself.
        if (!isInside(resolved, source.packageRoot)) checkChain(resolved);
      } else if (info.isDirectory()) walk(path);
    }
  };

  checkChain(source.nodePath);
  checkChain(source.packageRoot);
  const root = stat(source.packageRoot);
  if (root?.isDirectory()) walk(source.packageRoot);
  return [...problems];
}

/** Throws, saying what is wrong and what to do, unless the source can be installed. */
export function checkSourceTrusted(source: Pick<InstallSource, 'nodePath' | 'packageRoot'>, deps: SourceTrustDeps): void {
  const problems = sourceTrustProblems(source, deps);
  if (problems.length === 0) return;
  const shown = problems.slice(0, 10);
  throw new Error(
    [
      `wpp install refused: root runs this Node.js and this package on every hook and panel page, so nobody but root may be able to change them or a folder above them.`,
      `  Node.js: ${source.nodePath}`,
      `  wpp:     ${source.packageRoot}`,
      ...shown.map((problem) => `  - ${problem}`),
      ...(problems.length > shown.length ? [`  - and ${problems.length - shown.length} more`] : []),
      'Install Node.js and wpp where only root can write (a Node.js from the distribution or in /usr/local, wpp in /opt or /usr/local/lib, owned by root:root without group or other write: chown -R root:root DIR; chmod -R go-w DIR), then run wpp install from there. Nothing was written.',
    ].join('\n'),
  );
}
