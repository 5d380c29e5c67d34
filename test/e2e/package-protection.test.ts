/**
 * Protection per hosting package in a real browser: the Settings page lists the packages the
 * panel named, each with whether it includes web protection, beside the plan settings and limits
 * wpp keeps for it; the admin changes the grace period there. A customer whose package lacks it
 * lands on a page saying so. Both audited by axe-core and screenshotted at 1280 and 390 px.
 */
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { admin, customer, launchUrl, screenshots } from '../helpers/pages.js';
import { withPlugin } from '../helpers/plugin.js';

describe('protection per package in a browser', () => {
  it(
    'shows the packages on the Settings page, saves the grace period, and tells a customer without protection why',
    { timeout: 120_000 },
    async () => {
      await withPlugin(async (plugin) => {
        plugin.accounts.savePlan({ name: 'pro', settings: {}, subdomains: ['www', 'shop'], monitorDays: 3 });
        plugin.stats.setLimits('plan', 'pro', { accountHits: 500_000, domainLimit: 5 });
        await plugin.postEvents([
          { type: 'account.created', account: 'alice', plan: 'pro', protection: true },
          { type: 'account.created', account: 'bruno', plan: 'basic', protection: false },
          { type: 'domain.added', account: 'bruno', domain: 'bruno.example' },
        ]);
        await plugin.idle();
        await withBrowser(async (context) => {
          const page = await context.newPage();
          await page.setViewportSize({ width: 1280, height: 900 });
          await page.goto(launchUrl(plugin, admin('dana')));
          await page.goto(`${plugin.url}/admin/settings#packages`);
          const packages = page.locator('#packages');
          expect(await packages.getByRole('row', { name: /^basic / }).textContent()).toContain('Not included');
          const pro = await packages.getByRole('row', { name: /^pro / }).textContent();
          expect(pro).toContain('Included');
          expect(pro).toContain('500,000 hits per account');
          await packages.scrollIntoViewIfNeeded();
          await screenshots(page, 'settings-packages');

          await page.getByLabel('Days before the websites are removed').fill('thirty');
          await page.getByRole('button', { name: 'Save the grace period' }).click();
          await expect.poll(() => page.locator('#package-grace-days-problem').textContent()).toContain('enter a whole number of days');
          await screenshots(page, 'settings-packages-grace-refused');
          await page.getByLabel('Days before the websites are removed').fill('30');
          await page.getByRole('button', { name: 'Save the grace period' }).click();
          await expect.poll(() => page.getByRole('status').first().textContent()).toContain('The grace period was saved.');
          expect(await page.locator('#packages').textContent()).toContain('30 days');

          await page.goto(launchUrl(plugin, customer('bruno')));
          expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Web protection is not part of your hosting package');
          await screenshots(page, 'customer-package-without-protection');
        });
      });
    },
  );
});
