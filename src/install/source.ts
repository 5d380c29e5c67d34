/** This copy of wpp, as an installation names it: the launcher runs this Node.js and this package. */
import { readFileSync } from 'node:fs';
import { paths } from '../paths.js';
import type { InstallSource } from './common.js';

export function currentInstallSource(): InstallSource {
  const version = (JSON.parse(readFileSync(`${paths.root}/package.json`, 'utf8')) as { version: string }).version;
  return { nodePath: process.execPath, packageRoot: paths.root.replace(/\/$/, ''), version };
}
