/**
 * Installed, `wpp serve` runs as the wpp user, and the panel's tools (whmapi1, plesk bin,
 * DirectAdmin's user files) answer root only. So a serve that is not root leaves the scheduled
 * comparison of the panel's accounts to `wpp import <panel> --if-due`, which the installed
 * wpp-panel-check.timer runs as root every hour: it compares when WPP_PANEL_CHECK_HOURS have
 * passed since the last comparison, as the serve's schedule would have.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_RUN } from '../../src/core/import.js';
import { runWpp } from '../helpers/cli.js';
import { installDirectAdminFiles } from '../helpers/panel-listings.js';
import { startTestPlugin, testEnv } from '../helpers/plugin.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

let sandbox: TestSandbox;
let panelRoot: string;

beforeAll(async () => {
  sandbox = await startTestSandbox({ certDelaySeconds: 0 });
  panelRoot = createTempDir('wpp-da-');
  installDirectAdminFiles(panelRoot);
});
afterAll(async () => {
  await sandbox.close();
  removeTempDir(sandbox.dataDir);
  removeTempDir(panelRoot);
});

describe('the scheduled panel comparison', () => {
  it('is not run by a serve that may not run the panel tools (not root); one that may runs it', async () => {
    for (const asRoot of [false, true]) {
      const plugin = await startTestPlugin(sandbox, {
        env: { WPP_PANEL: 'directadmin' },
        panelRoot,
        scheduler: true,
        panelToolsAsRoot: asRoot,
      });
      try {
        if (asRoot) await waitFor(() => plugin.stats.lastSuccessfulRun(IMPORT_RUN) !== null, 10_000, 'the panel check');
        else {
          await new Promise((resolve) => setTimeout(resolve, 1500));
          expect(plugin.stats.lastSuccessfulRun(IMPORT_RUN)).toBeNull();
        }
      } finally {
        await plugin.close();
        removeTempDir(plugin.dataDir);
      }
    }
  }, 60_000);

  it('`wpp import <panel> --if-due` compares when due, as the schedule, and not again before WPP_PANEL_CHECK_HOURS', async () => {
    const dataDir = createTempDir('wpp-plugin-');
    try {
      const env = testEnv(dataDir, sandbox, { WPP_PANEL: 'directadmin', WPP_PANEL_CHECK_HOURS: '24' });
      const first = await runWpp(['import', 'directadmin', '--root', panelRoot, '--if-due'], { env });
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/^comparison \d+ recorded \(run \d+\)$/m);
      const second = await runWpp(['import', 'directadmin', '--root', panelRoot, '--if-due'], { env });
      expect(second.code).toBe(0);
      expect(second.stdout).toMatch(/^not due: the last comparison ran at \S+; the next after \S+ \(WPP_PANEL_CHECK_HOURS=24\)$/m);
      expect(second.stdout).not.toContain('recorded');

      const off = await runWpp(['import', 'directadmin', '--root', panelRoot, '--if-due'], { env: { ...env, WPP_PANEL_CHECK_HOURS: '0' } });
      expect(off.stdout).toContain('no scheduled comparison: WPP_PANEL_CHECK_HOURS is 0');
      const other = await runWpp(['import', 'directadmin', '--root', panelRoot, '--if-due'], { env: { ...env, WPP_PANEL: 'cpanel' } });
      expect(other.stdout).toContain('no scheduled comparison of directadmin: WPP_PANEL is cpanel');
    } finally {
      removeTempDir(dataDir);
    }
  }, 60_000);
});
