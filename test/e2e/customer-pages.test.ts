/**
 * A customer's way through their pages in a real browser: protect a domain, watch it go
 * from waiting for DNS to protected, change a rule and find it at the provider, see the
 * chart after traffic, and open the provider's rules editor in its frame. Screenshots of
 * every page at 1280 and 390 px go to test-results/screenshots.
 */
import { describe, expect, it } from 'vitest';
import { CALLBACK_REREAD_SPACING_MS } from '../../src/core/job-queue.js';
import { withBrowser } from '../helpers/browser.js';
import { customer, launchUrl, screenshots } from '../helpers/pages.js';
import { withPlugin } from '../helpers/plugin.js';
import { waitFor } from '../helpers/wait.js';

const DOMAIN = 'shop.example';

describe('customer pages in a browser', () => {
  it('protects a domain, changes a rule, shows the chart and opens the rules editor', { timeout: 120_000 }, async () => {
    // The plugin's clock, moved past a callback re-read's window (CALLBACK_REREAD_SPACING_MS) before the DNS change.
    const clock = { offset: 0 };
    await withPlugin(
      async (plugin, sb) => {
        await plugin.postEvents([
          { type: 'account.created', account: 'carol' },
          { type: 'domain.added', account: 'carol', domain: DOMAIN },
        ]);
        await plugin.idle();
        // A hit limit, so the page shows this period's hits against it.
        plugin.stats.setLimits('global', '', { websiteHits: 10_000 });
        await withBrowser(async (context) => {
          const page = await context.newPage();
          await page.setViewportSize({ width: 1280, height: 900 });
          await page.goto(launchUrl(plugin, customer('carol')));
          const row = page.getByRole('row', { name: new RegExp(DOMAIN) });
          await expect.poll(() => row.textContent()).toContain('Not protected');

          await row.getByRole('button', { name: `Protect ${DOMAIN}` }).click();
          await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Protection requested');
          expect(await row.textContent()).toContain('Waiting for DNS');
          expect(await row.textContent()).toContain('Change the DNS records of shop.example');

          // The domain owner's DNS change is seen; the provider calls back and the plugin re-reads the website.
          clock.offset += CALLBACK_REREAD_SPACING_MS;
          await sb.control('POST', `/_sandbox/websites/${DOMAIN}/dns-verified`);
          await waitFor(() => plugin.accounts.getWebsite(DOMAIN)?.providerStatus === 'online', 10_000, 'the callback to be handled');
          await page.reload();
          expect(await row.textContent()).toContain('Protected');
          expect(await row.getByRole('button', { name: `Pause ${DOMAIN}` }).count()).toBe(1);

          // Traffic at the provider, read by a sync (the first read is the baseline).
          await plugin.syncStatistics();
          await sb.control('POST', `/_sandbox/websites/${DOMAIN}/traffic`, {
            hits: 4200,
            blocked: 300,
            mitigated: 80,
            category: 'content_scrapers',
          });
          await plugin.syncStatistics();
          await page.goto(`${plugin.url}/panel`);
          expect(await row.textContent()).toContain('4,200 / 10,000 hits');
          await screenshots(page, 'customer-domains');

          await page.getByRole('link', { name: DOMAIN }).click();
          await page.getByLabel('People', { exact: true }).selectOption('captcha');
          await page.getByRole('button', { name: 'Save settings' }).click();
          await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Settings saved');
          const website = await sb.control<{ settings: { rules: Record<string, string> } }>('GET', `/v1.0/website?domain=${DOMAIN}`);
          expect(website.settings.rules.humans).toBe('captcha');
          expect(website.settings.rules.search_engines).toBe('grant');

          // The chart is drawn (uPlot's canvas) and the totals show.
          await page.locator('#hits-chart.drawn canvas').first().waitFor({ state: 'visible' });
          expect(await page.locator('table.totals').textContent()).toContain('4,200');
          expect(await page.locator('#hits-chart canvas').first().boundingBox()).toMatchObject({ width: expect.any(Number) });
          await screenshots(page, 'customer-domain');

          await page.getByRole('link', { name: 'Open the rules editor' }).click();
          const frame = page.frameLocator('#rules-editor');
          await expect.poll(() => frame.locator('h1').textContent(), { timeout: 15_000 }).toContain(DOMAIN);
          await expect.poll(() => page.locator('#frame-note').textContent()).toContain('apply at once');
          const newWindow = page.getByRole('link', { name: 'Open in a new window' });
          expect(await newWindow.getAttribute('target')).toBe('_blank');
          expect(await newWindow.getAttribute('rel')).toBe('noopener noreferrer');
          await screenshots(page, 'customer-rules');
        });
      },
      { env: { WPP_AUTO_PROTECT: 'false' }, now: () => Date.now() + clock.offset },
    );
  });
});
