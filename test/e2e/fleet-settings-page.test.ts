/**
 * The Settings page of a server with a fleet database (docs/fleet.md "Fleet settings"), in a
 * real browser: the limits and plan forms offer "All servers" (chosen) and "This server only";
 * a limit saved for all servers is said so; with the fleet database down the page says so
 * before anything is tried, in German too (expectTranslated). Screenshot at 1280 and 390 px
 * and audited by axe-core.
 */
import { createServer, type AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { expectTranslated } from '../helpers/i18n-check.js';
import { admin, launchUrl, screenshots } from '../helpers/pages.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startTestPlugin } from '../helpers/plugin.js';
import { removeTempDir, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

let postgres: TestPostgres;
let sandbox: TestSandbox;
beforeAll(async () => {
  [postgres, sandbox] = await Promise.all([startTestPostgres(), startTestSandbox()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([postgres?.stop(), sandbox?.close()]);
  if (sandbox) removeTempDir(sandbox.dataDir);
});

async function serverJoined(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const table = await client.query("SELECT to_regclass('fleet_servers') AS t");
    return Boolean(table.rows[0].t) && (await client.query('SELECT 1 FROM fleet_servers')).rowCount === 1;
  } finally {
    await client.end();
  }
}

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('the Settings page with a fleet database', () => {
  it(
    'offers All servers and This server only, saves for all servers, and says when the fleet database is down',
    { timeout: 120_000 },
    async () => {
      const url = await postgres.newDatabase();
      const plugin = await startTestPlugin(sandbox, { env: { WPP_FLEET_DATABASE_URL: url, WPP_SERVER_NAME: 'web1.host.example' } });
      const down = (await postgres.newDatabase()).replace(`:${postgres.port}/`, `:${await closedPort()}/`);
      const alone = await startTestPlugin(sandbox, { env: { WPP_FLEET_DATABASE_URL: down, WPP_SERVER_NAME: 'web2.host.example' } });
      try {
        await waitFor(() => serverJoined(url), 10_000, 'the server to join the fleet database');
        await withBrowser(async (context) => {
          const page = await context.newPage();
          await page.setViewportSize({ width: 1280, height: 900 });
          await page.goto(launchUrl(plugin, admin(), { next: '/admin/settings' }));
          const limitsForm = page.locator('form[action="/admin/settings/limits"]');
          expect(await limitsForm.getByLabel('All servers (fleet settings)').isChecked()).toBe(true);
          expect(await limitsForm.getByLabel('This server only (web1.host.example)').isChecked()).toBe(false);
          expect(await page.locator('form[action="/admin/settings/plans"]').getByLabel('All servers (fleet settings)').isChecked()).toBe(
            true,
          );

          await page.selectOption('#limit-scope', 'global');
          await page.fill('#limit-website-hits', '5000');
          await page.getByRole('button', { name: 'Save limits' }).click();
          await expect.poll(() => page.getByRole('status').first().textContent()).toContain('The limits were saved for all servers');
          expect(await page.locator('#history').textContent()).toContain('fleet:admin:alice-admin@web1.host.example');
          await screenshots(page, 'admin-settings-fleet');

          await page.goto(launchUrl(alone, admin(), { next: '/admin/settings' }));
          expect(await page.locator('#limits .fleet-choice').textContent()).toContain('The fleet database cannot be reached now');
          await screenshots(page, 'admin-settings-fleet-down');
        });
        await expectTranslated(
          alone,
          [{ name: 'settings with the fleet database down', as: 'admin', path: '/admin/settings', status: 200 }],
          ['web2.host.example'],
        );
      } finally {
        for (const running of [plugin, alone]) {
          await running.close();
          removeTempDir(running.dataDir);
        }
      }
    },
  );
});
