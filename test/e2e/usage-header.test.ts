/**
 * Usage and its consequences in a real browser, on a clock frozen at 20 Nov 2026, 10:30 UTC
 * (a monthly period, 1 to 30 Nov): the account header's hits, reset day and forecast; the
 * sentence when a limit is near; a website the hit limit paused, with since, until and the
 * host's upgrade link (set, and unset: "contact your host", with the panel's time zone on the
 * page and the chart); and pausing with its
 * confirmation in a browser with JavaScript off, the result shown as a warning.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { createPageClient } from '../helpers/page-client.js';
import { customer, launchUrl, screenshots } from '../helpers/pages.js';
import { protectedWebsite, withPlugin } from '../helpers/plugin.js';
import { waitFor } from '../helpers/wait.js';

const NOW = Date.UTC(2026, 10, 20, 10, 30);
const NEAR = 'near.example';
const OVER = 'over.example';
type Plugin = Parameters<Parameters<typeof withPlugin>[0]>[0];
type Sandbox = Parameters<Parameters<typeof withPlugin>[0]>[1];

/**
 * dora's two websites this period: near.example with 1,000 of its 1,100 hits, over.example
 * with 600 of 500 (paused by enforcement); the account 1,600 of 2,000.
 */
async function doraThisPeriod(plugin: Plugin, sb: Sandbox): Promise<void> {
  await protectedWebsite(plugin, sb, 'dora', NEAR);
  await plugin.postEvents([{ type: 'domain.added', account: 'dora', domain: OVER }]);
  await plugin.idle();
  await sb.control('POST', `/_sandbox/websites/${OVER}/dns-verified`);
  await waitFor(() => plugin.accounts.getWebsite(OVER)?.providerStatus === 'online', 10_000, `${OVER} to be online`);
  plugin.stats.setLimits('account', 'dora', { accountHits: 2000, warningPercent: 80 });
  plugin.stats.setLimits('website', NEAR, { websiteHits: 1100 });
  plugin.stats.setLimits('website', OVER, { websiteHits: 500 });
  await plugin.syncStatistics(); // the first read is the baseline
  await sb.control('POST', `/_sandbox/websites/${NEAR}/traffic`, { hits: 1000 });
  await sb.control('POST', `/_sandbox/websites/${OVER}/traffic`, { hits: 600 });
  await plugin.syncStatistics();
  await plugin.enforceLimits();
  expect(plugin.accounts.getWebsite(OVER)).toMatchObject({ desiredStatus: 'paused', pausedBy: 'enforcement' });
}

/**
 * dora's session in the browser. The plugin's clock stands still in the past, so the cookie it
 * sets would be expired by the browser's own clock: the launch is made outside the browser and
 * its cookie handed over without an expiry (the server still checks the session).
 */
async function signInDora(plugin: Plugin, context: BrowserContext, page: Page, path: string): Promise<void> {
  const client = createPageClient(plugin.url);
  expect((await client.get(launchUrl(plugin, customer('dora'), { now: NOW }))).status).toBe(303);
  await context.addCookies([...client.cookies].map(([name, value]) => ({ name, value, url: plugin.url })));
  await page.goto(`${plugin.url}${path}`);
}

const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ');

describe('usage and its consequences in the browser', () => {
  it(
    'shows the account header, the near-limit sentence, the paused-by-limit dates and upgrade link, and pauses only after confirming, without JavaScript',
    { timeout: 120_000 },
    async () => {
      await withPlugin(
        async (plugin, sb) => {
          await doraThisPeriod(plugin, sb);
          const nearRowOf = (page: Page) => page.getByRole('row', { name: new RegExp(NEAR) });
          await withBrowser(async (context) => {
            const page = await context.newPage();
            await page.setViewportSize({ width: 1280, height: 900 });
            await signInDora(plugin, context, page, '/panel');

            const header = await text(page, '.account-usage');
            expect(header).toContain('1,600 of 2,000 hits this period');
            expect(header).toContain('The period resets on 1 Dec 2026.');
            // 1,600 hits in 19 days 10.5 hours: 2,000 are reached 24.3 days into the period.
            expect(header).toContain('At this rate, the limit is reached on 25 Nov.');
            expect(header).toContain('Close to your account’s limit: protection of all your domains pauses at 2,000 hits.');
            expect(await nearRowOf(page).textContent()).toContain('Close to your limit: protection pauses at 1,100 hits.');
            await screenshots(page, 'usage-domains');

            await page.getByRole('link', { name: OVER }).click();
            const paused = await text(page, '.paused-by-limit');
            expect(paused).toContain('Paused since 20 Nov 2026, 10:30 UTC.');
            expect(paused).toContain('Protection resumes on 1 Dec 2026, when the next period starts.');
            const upgrade = page.getByRole('link', { name: 'Raise your limit' });
            expect(await upgrade.getAttribute('href')).toBe('https://host.example/plans?user=dora&site=over.example');
            expect(await text(page, '.card')).toContain('this period (1 Nov 2026 to 30 Nov 2026)');
            await screenshots(page, 'usage-paused-by-limit');

            // The confirmation page and the warning after a pause, audited (axe-core needs scripts: this browser has them).
            await page.goto(`${plugin.url}/panel/domains/${NEAR}/pause?return_to=list`);
            await screenshots(page, 'usage-pause-confirm');
            await page.goto(`${plugin.url}/panel?done=paused`);
            await screenshots(page, 'usage-paused');
          });

          // The pause itself in a browser with JavaScript off: the Pause button asks, Confirm pauses, a warning says so.
          await withBrowser(
            async (context) => {
              const page = await context.newPage();
              await signInDora(plugin, context, page, '/panel');
              await nearRowOf(page)
                .getByRole('button', { name: `Pause ${NEAR}` })
                .click();
              await page.getByRole('heading', { name: `Pause protection of ${NEAR}?` }).waitFor();
              expect(plugin.accounts.getWebsite(NEAR)).toMatchObject({ desiredStatus: 'online' });
              await page.getByRole('button', { name: 'Pause protection' }).click();
              const result = page.getByRole('status').first();
              expect(await result.textContent()).toContain(
                'Protection paused: the protection service now lets every visitor through, unfiltered.',
              );
              expect(await result.getAttribute('class')).toBe('note warn');
              expect(plugin.accounts.getWebsite(NEAR)).toMatchObject({ desiredStatus: 'paused', pausedBy: 'customer' });
            },
            { javaScriptEnabled: false },
          );
        },
        { env: { WPP_UPGRADE_URL: 'https://host.example/plans?user={account}&site={domain}' }, now: () => NOW },
      );
    },
  );

  it(
    "tells the customer to contact their host when the host set no upgrade page, in the panel's time zone, the chart's labels too",
    { timeout: 120_000 },
    async () => {
      await withPlugin(
        async (plugin, sb) => {
          await doraThisPeriod(plugin, sb);
          await withBrowser(async (context) => {
            const page = await context.newPage();
            await page.setViewportSize({ width: 1280, height: 900 });
            await signInDora(plugin, context, page, `/panel/domains/${OVER}`);
            const paused = await text(page, '.paused-by-limit');
            // 10:30 UTC is 19:30 in Tokyo.
            expect(paused).toMatch(/Paused since 20 Nov 2026, 19:30 (GMT\+9|JST)\./);
            expect(paused).toContain('To resume sooner, contact your host.');
            expect(await page.getByRole('link', { name: 'Raise your limit' }).count()).toBe(0);

            // The chart's legend under the cursor: the hour of the only point (10:00 UTC), in Tokyo's time.
            const chart = page.locator('#hits-chart.drawn .u-over');
            await chart.waitFor({ state: 'visible' });
            const box = await chart.boundingBox();
            if (!box) throw new Error('the chart has no plot area');
            await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
            await expect
              .poll(() => page.locator('#hits-chart .u-legend .u-series').first().textContent())
              .toMatch(/20 Nov, 19:00 (GMT\+9|JST)/);
            await screenshots(page, 'usage-paused-no-upgrade');
          });
        },
        { env: { WPP_TIME_ZONE: 'Asia/Tokyo' }, now: () => NOW },
      );
    },
  );
});
