/**
 * A reseller runs their own customers in a real browser (issue 22): launches from the panel,
 * reads the overview, bulk-protects their customers' domains left in setup, searches their
 * websites, pauses and resumes one, reads their accounts and enforcement log, sets a limit of
 * one of their websites; and the same pages in German. Nothing of another reseller's customer
 * (bob) or of the host's own (carol) shows anywhere. Screenshots of every reseller page at 1280
 * and 390 px, each audited by axe-core.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { launchUrl, reseller, screenshots } from '../helpers/pages.js';
import { withPlugin } from '../helpers/plugin.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { FLEET_ENV, othersIn, seedFleet } from '../integration/reseller-fleet.js';

const requestedStatus = async (sandbox: TestSandbox, domain: string) =>
  (await sandbox.control<{ domain: string; requested_status: string }[]>('GET', '/v1.0/website')).find((w) => w.domain === domain)
    ?.requested_status;

const clickAndWait = async (page: Page, name: string | RegExp) => {
  // Every button here submits a form: the next document's load is the answer.
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name, exact: true }).click()]);
};

/** The page shows nothing of bob's or carol's. */
const expectOwnOnly = async (page: Page) => expect(othersIn(await page.content())).toEqual([]);

describe('reseller pages in a browser', () => {
  it("a reseller bulk-protects, searches, pauses and resumes, reads the log and sets a limit of their own customers' websites", async () => {
    await withPlugin(
      async (plugin, sandbox) => {
        await seedFleet(plugin);
        await withBrowser(async (context) => {
          const page = await context.newPage();
          await page.setViewportSize({ width: 1280, height: 900 });
          await page.goto(launchUrl(plugin, reseller('res1')));
          await expect.poll(() => page.locator('h1').textContent()).toBe('Your customers');
          expect(await page.locator('td[data-label="Account"]').allInnerTexts()).toEqual(['alice']);
          await expectOwnOnly(page);
          await screenshots(page, 'reseller-overview');

          await page.getByRole('link', { name: 'Bulk protect', exact: true }).click();
          expect(await page.getByTestId('setup-count').innerText()).toBe('2');
          await expectOwnOnly(page);
          await screenshots(page, 'reseller-bulk-protect');
          await page.getByLabel('Days of monitoring first').fill('0');
          await clickAndWait(page, /Protect 2/);
          await expect.poll(() => page.getByRole('status').first().textContent()).toContain('2');
          await plugin.idle();
          for (const domain of ['alice.example', 'alice2.example']) {
            expect(await requestedStatus(sandbox, domain), domain).toBe('online');
            await sandbox.control('POST', `/_sandbox/websites/${domain}/dns-verified`);
            await sandbox.control('POST', `/_sandbox/websites/${domain}/traffic`, { hits: 1500, blocked: 300 });
          }
          await plugin.syncStatistics();
          await plugin.enforceLimits();
          // The others' domains were left as they were.
          for (const domain of ['bob.example', 'carol.example']) expect(await requestedStatus(sandbox, domain), domain).toBe('setup');

          await page.getByRole('link', { name: 'Websites', exact: true }).click();
          expect(await page.locator('td[data-label="Domain"]').allInnerTexts()).toEqual(['alice.example', 'alice2.example']);
          await page.getByLabel('Domain or account').fill('alice2');
          await clickAndWait(page, 'Search');
          expect(await page.locator('td[data-label="Domain"]').allInnerTexts()).toEqual(['alice2.example']);
          await page.goto(`${plugin.url}/reseller/websites`);
          await expectOwnOnly(page);
          await screenshots(page, 'reseller-websites');

          await page.getByRole('link', { name: 'alice.example', exact: true }).click();
          await expect.poll(() => page.locator('h1').textContent()).toBe('alice.example');
          await clickAndWait(page, 'Pause');
          await expect.poll(() => page.getByRole('status').first().textContent()).toContain('you or the host can');
          await clickAndWait(page, 'Resume');
          await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Resumed at the provider');
          expect(await page.locator('#status-history').innerText()).toMatch(/paused → online/);
          await expectOwnOnly(page);
          await screenshots(page, 'reseller-website');

          await page.getByRole('link', { name: 'Accounts', exact: true }).click();
          expect(await page.locator('td[data-label="Account"]').allInnerTexts()).toEqual([expect.stringContaining('alice')]);
          await expectOwnOnly(page);
          await screenshots(page, 'reseller-accounts');

          await page.getByRole('link', { name: 'Enforcement log', exact: true }).click();
          expect(await page.locator('main').innerText()).toMatch(/alice \/ alice\.example/);
          await expectOwnOnly(page);
          await screenshots(page, 'reseller-enforcement-log');

          await page.getByRole('link', { name: 'Limits', exact: true }).click();
          await page.getByLabel('Scope').selectOption('website');
          await page.getByLabel('Subject').fill('alice2.example');
          await page.getByLabel('Hits per website').fill('2000');
          await clickAndWait(page, 'Save limits');
          await expect.poll(() => page.getByRole('status').first().textContent()).toContain('saved');
          expect(plugin.stats.limitLayer('website', 'alice2.example')).toMatchObject({ websiteHits: 2000 });
          await expectOwnOnly(page);
          await screenshots(page, 'reseller-limits');
        });
      },
      { env: FLEET_ENV },
    );
  }, 120_000);

  it('shows the reseller pages in German', async () => {
    await withPlugin(
      async (plugin) => {
        await seedFleet(plugin);
        await withBrowser(async (context) => {
          const page = await context.newPage();
          await page.setViewportSize({ width: 1280, height: 900 });
          await page.goto(launchUrl(plugin, { ...reseller('res1'), locale: 'de' }, { next: '/reseller/websites' }));
          expect(await page.getAttribute('html', 'lang')).toBe('de');
          expect(await page.locator('h1').textContent()).toBe('Websites');
          expect(await page.getByRole('link', { name: 'Durchsetzungsprotokoll' }).count()).toBe(1);
          expect(await page.getByRole('button', { name: 'Suchen' }).count()).toBe(1);
          await expectOwnOnly(page);
          await screenshots(page, 'reseller-de-websites');
          await page.goto(`${plugin.url}/reseller/limits`);
          expect(await page.locator('main').innerText()).toContain('Zugriffslimits der Konten und Websites Ihrer Kunden');
          await screenshots(page, 'reseller-de-limits');
        });
      },
      { env: FLEET_ENV },
    );
  }, 120_000);
});
