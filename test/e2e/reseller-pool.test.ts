/**
 * An admin sets a reseller's pooled hit limit on the Settings page in a real browser (issue
 * 22): picks the reseller, is told a bad value next to its field, saves the pool and sees its
 * usage; enforcement then pauses the reseller's customers, and the admin's website and
 * accounts pages show the pool. Screenshots of the Settings page with the pool set.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { admin, launchUrl, screenshots } from '../helpers/pages.js';
import { withPlugin } from '../helpers/plugin.js';
import type { TestSandbox } from '../helpers/sandbox.js';

const requestedStatus = async (sandbox: TestSandbox, domain: string) =>
  (await sandbox.control<{ domain: string; requested_status: string }[]>('GET', '/v1.0/website')).find((w) => w.domain === domain)
    ?.requested_status;

const submit = async (page: Page, form: ReturnType<Page['locator']>, name: string) => {
  await Promise.all([page.waitForEvent('load'), form.getByRole('button', { name, exact: true }).click()]);
};

describe('reseller pools on the Settings page', () => {
  it("an admin picks a reseller, sets its pool, and the pool's usage shows on the Settings, website and accounts pages", async () => {
    await withPlugin(async (plugin, sandbox) => {
      const sites: [string, string, string][] = [
        ['r1', 'alice', 'alice-shop.example'],
        ['r1', 'bob', 'bob-photos.example'],
        ['r2', 'carol', 'carol-travel.example'],
      ];
      await plugin.postEvents(sites.map(([, account, domain]) => ({ type: 'domain.added', account, domain })));
      await plugin.idle();
      for (const [reseller, account, domain] of sites) {
        plugin.accounts.setAccountReseller(account, reseller);
        await sandbox.control('POST', `/_sandbox/websites/${domain}/dns-verified`);
        await sandbox.control('POST', `/_sandbox/websites/${domain}/traffic`, { hits: 600 });
      }
      await plugin.syncStatistics();

      await withBrowser(async (context) => {
        const page = await context.newPage();
        await page.goto(launchUrl(plugin, admin('dana-admin'), { next: '/admin/settings' }));
        const form = page.locator('form[action="/admin/settings/reseller-pool"]');
        // Both resellers the panel named are offered.
        expect(await form.getByLabel('Reseller', { exact: true }).locator('option').allInnerTexts()).toEqual([
          'Choose a reseller…',
          'r1',
          'r2',
        ]);
        await form.getByLabel('Reseller', { exact: true }).selectOption('r1');
        await form.getByLabel("Hits of the reseller's pool").fill('lots');
        await submit(page, form, 'Save pool');
        await expect
          .poll(() => page.locator('#reseller-pools .field.invalid').first().textContent())
          .toContain('"lots" is not a whole number');
        await form.getByLabel("Hits of the reseller's pool").fill('1000');
        await submit(page, form, 'Save pool');
        await expect.poll(() => page.getByRole('status').first().textContent()).toContain("The reseller's pool was saved.");
        const usage = await page.locator('#reseller-pool-usage').innerText();
        expect(usage).toMatch(/^r1\s+\S.* to \S/m);
        expect(usage).toContain('1,200 of 1,000 hits');
        expect(await page.locator('#limits table').innerText()).toMatch(/reseller\s+r1/);
        await screenshots(page, 'admin-settings-reseller-pool');

        // The pool is used up: enforcement pauses both of r1's customers, not r2's.
        expect(await plugin.enforceLimits()).toMatchObject({ paused: 2, failed: 0 });
        expect(await requestedStatus(sandbox, 'alice-shop.example')).toBe('paused');
        expect(await requestedStatus(sandbox, 'bob-photos.example')).toBe('paused');
        expect(await requestedStatus(sandbox, 'carol-travel.example')).toBe('online');

        await page.goto(`${plugin.url}/admin/websites/alice-shop.example`);
        expect(await page.locator('main').innerText()).toMatch(/Reseller r1's pool\s+1,200 of 1,000 hits/);
        await page.goto(`${plugin.url}/admin/accounts`);
        const accounts = await page.locator('main').innerText();
        expect(accounts).toMatch(/Reseller r1's pool: 1,200 of 1,000 hits/);
        expect(accounts).toMatch(/Reseller r2's pool: 600 hits, no pool set/);
        await page.goto(`${plugin.url}/admin/runs`);
        expect(await page.locator('main').innerText()).toMatch(/alice-shop\.example\s+pause.*reseller pool limit/s);
      });
    });
  });
});
