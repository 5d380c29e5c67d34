/**
 * `wpp install` as an administrator would run it from a Node.js in a folder others may write
 * (here a link to the real node in a 0775 folder under the 1777 /tmp, as a node unpacked into a
 * shared folder): refused before anything is written or registered.
 */
import { spawn } from 'node:child_process';
import { chmodSync, linkSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeSystemctl, filesBelow, toolCalls } from '../helpers/fake-tools.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const repoRoot = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
let root: string;
let shared: string;

beforeEach(() => {
  root = createTempDir('wpp-install-trust-');
  fakeSystemctl(root);
  shared = createTempDir('wpp-shared-node-');
  mkdirSync(join(shared, 'bin'));
  chmodSync(join(shared, 'bin'), 0o775);
  linkSync(process.execPath, join(shared, 'bin/node'));
});
afterEach(() => {
  removeTempDir(root);
  removeTempDir(shared);
});

function installWith(node: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, ['--import', 'tsx', 'src/cli.ts', 'install', 'systemd', '--root', root], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('wpp install from a Node.js others may change', () => {
  it('is refused, naming the folder and what to do; nothing is written or registered', async () => {
    const run = await installWith(join(shared, 'bin/node'));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`${shared}/bin is writable by group or others (mode 0775)`);
    expect(run.stderr).toContain('Nothing was written.');
    expect([...filesBelow(root).keys()]).toEqual(['/usr/bin/systemctl']);
    expect(toolCalls(root)).toEqual([]);
  }, 60_000);
});
