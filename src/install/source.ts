/**
 * This copy of wpp, as an installation names it: the launcher runs this Node.js and this
 * package. From a git checkout (development) the package is the checkout itself, where it is;
 * from a release it is the copy `wpp install` makes in /usr/local/lib/wpp/<version>.
 */
import { readFileSync } from 'node:fs';
import { paths } from '../paths.js';
import type { InstallSource } from './common.js';
import { readReleaseAt, releaseFolder } from './release.js';

export function currentInstallSource(): InstallSource {
  const here = paths.root.replace(/\/$/, '');
  const version = (JSON.parse(readFileSync(`${here}/package.json`, 'utf8')) as { version: string }).version;
  const release = readReleaseAt(here);
  if (!release) return { nodePath: process.execPath, packageRoot: here, version };
  if (release.manifest.version !== version)
    throw new Error(
      `${here}/release.json names version ${release.manifest.version}, package.json ${version}: the release was changed after it was built`,
    );
  return { nodePath: process.execPath, packageRoot: releaseFolder(version), version, release };
}
