/**
 * "All servers" in a real browser, in German (issue 23, docs/fleet.md "The fleet view"): two
 * plugins on one sandbox and one real PostgreSQL; the admin of the first opens "Alle Server" from
 * the menu, sees both servers' health, finds a website of the second server and reads the fleet's
 * enforcement log; then the fleet database goes away and the page says so. Each page is
 * screenshot at 1280 and 390 px and audited by axe-core.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { admin, launchUrl, screenshots } from '../helpers/pages.js';
import { startTestPlugin } from '../helpers/plugin.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { removeTempDir, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';
import { forwardedPort } from '../helpers/port-forward.js';

type Plugin = Awaited<ReturnType<typeof startTestPlugin>>;

let postgres: TestPostgres;
let sandbox: TestSandbox;
beforeAll(async () => {
  [postgres, sandbox] = await Promise.all([startTestPostgres(), startTestSandbox({ certDelaySeconds: 0 })]);
}, 60_000);
afterAll(async () => {
  await Promise.all([postgres?.stop(), sandbox?.close()]);
  if (sandbox) removeTempDir(sandbox.dataDir);
});

async function websitesWithPause(plugin: Plugin, account: string, domains: string[], overLimit: string): Promise<void> {
  await plugin.postEvents(domains.map((domain) => ({ type: 'domain.added', account, domain })));
  await plugin.idle();
  for (const domain of domains) await sandbox.control('POST', `/_sandbox/websites/${domain}/dns-verified`);
  await waitFor(() => domains.every((d) => plugin.accounts.getWebsite(d)?.providerStatus === 'online'), 10_000, 'websites online');
  plugin.stats.setLimits('global', '', { websiteHits: 100 });
  await sandbox.control('POST', `/_sandbox/websites/${overLimit}/traffic`, { hits: 150, blocked: 0 });
  await plugin.syncStatistics();
  expect((await plugin.enforceLimits()).paused).toBe(1);
}

describe('All servers in the browser', () => {
  it(
    'shows the health of both servers, finds a website of the other, lists the fleet log, and says when the database is down',
    { timeout: 150_000 },
    async () => {
      const database = await postgres.newDatabase();
      const proxy = await forwardedPort(postgres.port);
      await proxy.up();
      const url = database.replace(`:${postgres.port}/`, `:${proxy.port}/`);
      const env = (name: string) => ({ env: { WPP_FLEET_DATABASE_URL: url, WPP_SERVER_NAME: name }, fleetPublishEveryMs: 100 });
      const one = await startTestPlugin(sandbox, env('web1.host.example'));
      const two = await startTestPlugin(sandbox, env('web2.host.example'));
      try {
        await websitesWithPause(one, 'anna', ['anna-shop.example', 'anna-blog.example'], 'anna-shop.example');
        await websitesWithPause(two, 'bernd', ['bernd-laden.example', 'bernd-info.example'], 'bernd-laden.example');
        await withBrowser(async (context) => {
          const page = await context.newPage();
          await page.setViewportSize({ width: 1280, height: 900 });
          await page.goto(launchUrl(one, { ...admin(), locale: 'de' }, { next: '/admin' }));
          await page.getByRole('link', { name: 'Alle Server' }).click();
          await page.waitForURL(/\/admin\/fleet$/);
          // Both servers, once the second has sent its first round.
          await waitFor(
            async () => {
              await page.reload();
              const text = (await page.locator('tbody').textContent()) ?? '';
              return text.includes('web2.host.example') && text.includes('web1.host.example');
            },
            15_000,
            'both servers on the page',
          );
          expect(await page.locator('h1').textContent()).toBe('Alle Server');
          expect(await page.locator('thead').textContent()).toContain('Zuletzt gemeldet');
          expect(await page.locator('tbody').textContent()).toContain('dieser Server');
          expect(
            await page
              .locator('nav[aria-label="Hauptmenü"] a[aria-current="page"], header nav a[aria-current="page"]')
              .first()
              .textContent(),
          ).toBe('Alle Server');
          await screenshots(page, 'fleet-de-servers');

          await page.getByRole('link', { name: 'Websites suchen' }).click();
          await page.getByLabel('Domain oder Konto').fill('bernd');
          await page.getByRole('button', { name: 'Suchen' }).click();
          await page.waitForURL(/q=bernd/);
          await waitFor(
            async () => {
              await page.reload();
              return ((await page.locator('tbody').textContent()) ?? '').includes('bernd-laden.example');
            },
            15_000,
            "the other server's websites",
          );
          const found = (await page.locator('tbody').textContent()) ?? '';
          expect(found).toContain('bernd-info.example');
          expect(found).toContain('web2.host.example');
          expect(found).toContain('pausiert');
          await screenshots(page, 'fleet-de-search');

          await page.getByRole('link', { name: 'Durchsetzungsprotokoll' }).first().click();
          await page.waitForURL(/\/admin\/fleet\/log$/);
          const log = (await page.locator('tbody').textContent()) ?? '';
          expect(log).toContain('anna-shop.example');
          expect(log).toContain('bernd-laden.example');
          await screenshots(page, 'fleet-de-log');

          await proxy.down();
          await page.goto(`${one.url}/admin/fleet`);
          const alert = page.getByRole('alert');
          expect(await alert.textContent()).toContain('Die Flottendatenbank antwortet nicht.');
          expect(await alert.textContent()).toMatch(/Sie hat zuletzt (gerade eben|vor \d+ Minuten?) geantwortet/);
          await screenshots(page, 'fleet-de-down');
        });
      } finally {
        for (const plugin of [one, two]) {
          await plugin.close();
          removeTempDir(plugin.dataDir);
        }
        await proxy.down().catch(() => undefined);
      }
    },
  );
});
