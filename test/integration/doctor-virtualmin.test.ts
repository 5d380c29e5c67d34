/**
 * `wpp doctor` on a Virtualmin install (the real installer below a temporary root, the real
 * registration script): the panel line is ok while post_command runs wpp's hook and wpp is a
 * plugin, and FAILs, saying what, once Virtualmin's configuration lost either.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWpp } from '../helpers/cli.js';
import { decoyCalls, decoyPath, fakeSystemctl } from '../helpers/fake-tools.js';
import { startTestPlugin, testEnv } from '../helpers/plugin.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const CONFIG = '/etc/webmin/virtual-server/config';

describe('wpp doctor on a Virtualmin install', () => {
  it('is ok while the registration is in place; FAILs naming post_command when another command replaced it', async () => {
    const sandbox = await startTestSandbox({ certDelaySeconds: 0 });
    const plugin = await startTestPlugin(sandbox);
    const env = testEnv(plugin.dataDir, sandbox, { WPP_PORT: new URL(plugin.url).port, WPP_PUBLIC_URL: plugin.url });
    const root = createTempDir('wpp-doctor-vm-');
    try {
      fakeSystemctl(root);
      mkdirSync(join(root, '/usr/share/webmin/virtual-server'), { recursive: true });
      writeFileSync(join(root, '/usr/share/webmin/virtual-server/virtual-server-lib.pl'), '1;\n');
      mkdirSync(join(root, '/etc/webmin/virtual-server'), { recursive: true });
      writeFileSync(join(root, CONFIG), 'plugins=\n', { mode: 0o600 });
      writeFileSync(join(root, '/etc/webmin/webmin.acl'), 'root: virtual-server\n', { mode: 0o600 });
      const path = `${decoyPath(root, ['systemctl', 'virtualmin'])}:${process.env.PATH ?? ''}`;
      expect((await runWpp(['install', 'virtualmin', '--root', root], { env: { PATH: path } })).code).toBe(0);

      const healthy = await runWpp(['doctor', '--root', root], { env: { ...env, PATH: path } });
      expect(healthy.stdout).toMatch(/^ok +panel +virtualmin: files in place, hooks and menu entries registered$/m);
      expect(healthy.code).toBe(0);

      // Someone set another post-change command in Virtualmin's configuration.
      writeFileSync(
        join(root, CONFIG),
        readFileSync(join(root, CONFIG), 'utf8').replace(/^post_command=.*$/m, 'post_command=/opt/other.sh'),
      );
      const broken = await runWpp(['doctor', '--root', root], { env: { ...env, PATH: path } });
      expect(broken.stdout).toMatch(
        /^FAIL +panel +virtualmin: .*Virtualmin post_command \(\/usr\/local\/lib\/wpp\/wpp hook virtualmin post\).*not registered.*run wpp install virtualmin/m,
      );
      expect(broken.code).toBe(1);
      expect(decoyCalls(root)).toEqual([]);
    } finally {
      await plugin.close();
      await sandbox.close();
      removeTempDir(plugin.dataDir);
      removeTempDir(sandbox.dataDir);
      removeTempDir(root);
    }
  }, 120_000);
});
