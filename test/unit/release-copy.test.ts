/**
 * The copy `wpp install` makes of a release (src/install/release.ts), on a small release made
 * here: root's whatever the unpacked files were, checked against SHA256SUMS, refused whole when
 * a file was changed, added or could be changed by others, and never for a foreign Node.js.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkReleaseRunsHere, placeRelease, readReleaseAt, type ReleaseManifest } from '../../src/install/release.js';
import { serverTrust } from '../../src/install/source-trust.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const MANIFEST: ReleaseManifest = {
  name: 'wpp',
  version: '9.8.7',
  platform: 'linux',
  arch: 'x64',
  nodeModuleVersion: '115',
  builtWithNode: 'v20.20.2',
};
const FILES: Record<string, { content: string; mode: number }> = {
  'release.json': { content: JSON.stringify(MANIFEST), mode: 0o644 },
  'bin/wpp.js': { content: '#!/usr/bin/env node\n', mode: 0o775 },
  // As a user with umask 000 would have unpacked it: writable by all.
  'dist/cli.js': { content: 'export {};\n', mode: 0o666 },
};

let dir: string;
let unpacked: string;
let target: string;
const options = () => ({ trust: serverTrust(), nodePath: process.execPath });

function writeRelease(): void {
  for (const [file, { content, mode }] of Object.entries(FILES)) {
    mkdirSync(join(unpacked, file, '..'), { recursive: true });
    writeFileSync(join(unpacked, file), content);
    chmodSync(join(unpacked, file), mode);
  }
  const sums = Object.keys(FILES)
    .sort()
    .map(
      (file) =>
        `${createHash('sha256')
          .update(FILES[file]?.content ?? '')
          .digest('hex')}  ${file}\n`,
    )
    .join('');
  writeFileSync(join(unpacked, 'SHA256SUMS'), sums);
}

beforeEach(() => {
  dir = createTempDir('wpp-release-copy-');
  unpacked = join(dir, 'unpacked');
  mkdirSync(join(dir, 'lib'), { mode: 0o755 });
  target = join(dir, 'lib', '9.8.7');
  writeRelease();
});
afterEach(() => removeTempDir(dir));

describe('placeRelease', () => {
  it("copies the release as root's, folders 0755 and files 0644 or 0755, and leaves the same release alone", async () => {
    const origin = readReleaseAt(unpacked);
    expect(origin?.manifest.version).toBe('9.8.7');
    expect(await placeRelease(origin!, target, options())).toBe('copied');
    const info = (path: string) => {
      const stat = statSync(join(target, path));
      return `${stat.uid}:${stat.gid} ${(stat.mode & 0o7777).toString(8)}`;
    };
    expect(info('')).toBe('0:0 755');
    expect(info('bin')).toBe('0:0 755');
    expect(info('bin/wpp.js')).toBe('0:0 755');
    expect(info('dist/cli.js')).toBe('0:0 644');
    expect(readFileSync(join(target, 'dist/cli.js'), 'utf8')).toBe('export {};\n');
    expect(await placeRelease(origin!, target, options())).toBe('unchanged');
    expect(readdirSync(join(dir, 'lib'))).toEqual(['9.8.7']);
  });

  it('refuses a release whose file differs from SHA256SUMS, or holds one it does not list, and installs nothing', async () => {
    writeFileSync(join(unpacked, 'dist/cli.js'), 'process.exit(0);\n');
    await expect(placeRelease(readReleaseAt(unpacked)!, target, options())).rejects.toThrow(
      'does not match its SHA256SUMS (dist/cli.js differs from SHA256SUMS)',
    );
    writeRelease();
    writeFileSync(join(unpacked, 'dist/extra.js'), '');
    await expect(placeRelease(readReleaseAt(unpacked)!, target, options())).rejects.toThrow('dist/extra.js is not in SHA256SUMS');
    expect(readdirSync(join(dir, 'lib'))).toEqual([]);
  });

  it('refuses a copy others could change (a group-writable folder above it), leaving nothing behind', async () => {
    chmodSync(join(dir, 'lib'), 0o775);
    await expect(placeRelease(readReleaseAt(unpacked)!, target, options())).rejects.toThrow(
      `${join(dir, 'lib')} is writable by group or others`,
    );
    expect(readdirSync(join(dir, 'lib'))).toEqual([]);
    expect(existsSync(target)).toBe(false);
  });
});

describe('checkReleaseRunsHere', () => {
  it("accepts this machine's platform and Node.js module version, refuses another, saying which Node.js to use", () => {
    expect(() => checkReleaseRunsHere(MANIFEST, { platform: 'linux', arch: 'x64', modules: '115' })).not.toThrow();
    expect(() => checkReleaseRunsHere(MANIFEST, { platform: 'linux', arch: 'x64', modules: '127' })).toThrow(
      'this release was built with Node.js v20.20.2 (module version 115)',
    );
    expect(() => checkReleaseRunsHere(MANIFEST, { platform: 'linux', arch: 'arm64', modules: '115' })).toThrow(
      'this release is for linux-x64, this machine is linux-arm64',
    );
  });
});
