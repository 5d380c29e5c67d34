/**
 * Monitoring first, then protecting, in a real browser: an admin bulk-protects with 5 days of
 * monitoring; the customer sees what monitoring means, the day protection starts and Protect
 * now; the clock moved 5 days and the schedule run, the domain is protected at the provider
 * and on the page; Protect now protects another domain at once.
 */
import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/time.js';
import { withBrowser } from '../helpers/browser.js';
import { admin, customer, launchUrl, screenshots } from '../helpers/pages.js';
import { withPlugin } from '../helpers/plugin.js';
import { waitFor } from '../helpers/wait.js';

describe('monitoring first in a browser', () => {
  it(
    'bulk protect with days: the customer sees monitoring and its date, then protection after the days, or at once',
    { timeout: 120_000 },
    async () => {
      const clock = { offset: 0 };
      await withPlugin(
        async (plugin, sb) => {
          await plugin.postEvents([
            { type: 'account.created', account: 'carol' },
            { type: 'domain.added', account: 'carol', domain: 'shop.example' },
            { type: 'domain.added', account: 'carol', domain: 'blog.example' },
          ]);
          await plugin.idle();
          const asked = async (domain: string) => {
            const website = await sb.control<{ status: string; requested_status?: string }>('GET', `/v1.0/website?domain=${domain}`);
            return website.requested_status ?? website.status;
          };
          await withBrowser(async (context) => {
            const page = await context.newPage();
            await page.setViewportSize({ width: 1280, height: 900 });
            await page.goto(launchUrl(plugin, admin('dana'), { now: Date.now() + clock.offset }));
            await page.goto(`${plugin.url}/admin/bulk-protect`);
            await page.getByLabel('Days of monitoring first').fill('5');
            await screenshots(page, 'monitoring-bulk-protect');
            await page.getByRole('button', { name: /^Protect 2 domains/ }).click();
            await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Queued: 2 websites');
            await plugin.idle();
            expect(await asked('shop.example')).toBe('paused');

            await page.goto(`${plugin.url}/admin/websites/shop.example`);
            expect(await page.getByTestId('monitoring-until').textContent()).toContain('then protected by the schedule');
            await screenshots(page, 'monitoring-admin-website');

            await page.goto(launchUrl(plugin, customer('carol'), { now: Date.now() + clock.offset }));
            const row = page.getByRole('row', { name: /shop\.example/ });
            expect(await row.textContent()).toContain('Monitoring');
            await screenshots(page, 'monitoring-customer-domains');
            await page.getByRole('link', { name: 'shop.example' }).click();
            const card = page.getByRole('region', { name: 'Monitoring first' });
            expect(await card.textContent()).toContain('We watch your traffic, we block nothing yet');
            const startsOn = new Date(Date.now() + clock.offset + 5 * DAY_MS).toLocaleDateString('en-GB', {
              day: 'numeric',
              month: 'short',
              timeZone: 'UTC',
            });
            expect(await card.textContent()).toContain(`Protection starts by itself on ${startsOn}`);
            expect(await card.getByRole('button', { name: 'Protect now: shop.example' }).count()).toBe(1);
            await screenshots(page, 'monitoring-customer-domain');

            // Five days later the schedule switches it on.
            clock.offset += 5 * DAY_MS + 60_000;
            expect(await plugin.switchMonitoring()).toMatchObject({ protected: 2 });
            expect(await asked('shop.example')).toBe('online');
            // Its DNS is seen: the provider calls back and the plugin reads it online.
            await sb.control('POST', '/_sandbox/websites/shop.example/dns-verified');
            await waitFor(
              () => plugin.accounts.getWebsite('shop.example')?.providerStatus === 'online',
              10_000,
              'the callback to be handled',
            );
            // Five days on, the page session has expired: the customer opens the pages from the panel again.
            await page.goto(launchUrl(plugin, customer('carol'), { now: Date.now() + clock.offset }));
            await page.goto(`${plugin.url}/panel/domains/shop.example`);
            expect(await page.getByRole('region', { name: 'Monitoring first' }).count()).toBe(0);
            expect(await page.locator('p.state').textContent()).toContain('Protected');
            await screenshots(page, 'monitoring-customer-protected');

            // Protect now: a new domain of carol's, bulk-protected with the field empty (the default plan's 10 days), protected at once.
            await plugin.postEvents([{ type: 'domain.added', account: 'carol', domain: 'new.example' }]);
            await plugin.idle();
            await page.goto(launchUrl(plugin, admin('dana'), { now: Date.now() + clock.offset }));
            // The default plan's days, set on the admin Settings page.
            await page.goto(`${plugin.url}/admin/settings#plans`);
            await page.getByLabel('Plan name').fill('default');
            await page.getByLabel('Days of monitoring first').fill('10');
            await page.getByRole('button', { name: 'Save plan' }).click();
            await expect.poll(() => page.locator('#plans').textContent()).toContain('10 days');
            await screenshots(page, 'monitoring-admin-settings');
            await page.goto(`${plugin.url}/admin/bulk-protect`);
            await page.getByRole('button', { name: /^Protect 1 domain/ }).click();
            await plugin.idle();
            expect(await asked('new.example')).toBe('paused');
            await page.goto(launchUrl(plugin, customer('carol'), { now: Date.now() + clock.offset }));
            await page.goto(`${plugin.url}/panel/domains/new.example`);
            await page.getByRole('button', { name: 'Protect now: new.example' }).click();
            await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Protection requested');
            expect(await asked('new.example')).toBe('online');
            expect(await page.getByRole('region', { name: 'Monitoring first' }).count()).toBe(0);
          });
        },
        { env: { WPP_AUTO_PROTECT: 'false' }, now: () => Date.now() + clock.offset },
      );
    },
  );
});
