/**
 * A domain the provider refuses, in a real browser (issue 21, part 1): the customer sees it
 * on My domains and its page as "Could not protect", with the provider's reason, what to do
 * and Try again; the admin sees it counted in error on the overview, finds it by search and
 * reads the reason on its page. Once its DNS is fixed at the sandbox, the customer's Try again
 * (and, for a second domain, the admin's Retry) provisions it: it leaves "Could not protect".
 * Screenshots of each changed page at 1280 and 390 px, each audited by axe-core.
 */
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { admin, customer, launchUrl, screenshots } from '../helpers/pages.js';
import { withPlugin } from '../helpers/plugin.js';

const REFUSED = 'nowhere.example';
const ALSO_REFUSED = 'gone.example';

describe('a refused domain in a browser', () => {
  it('is seen by the customer and the admin with its reason, and protected once fixed and tried again', { timeout: 120_000 }, async () => {
    await withPlugin(async (plugin, sb) => {
      await sb.control('POST', '/_sandbox/nxdomain', { domains: [REFUSED, ALSO_REFUSED] });
      await plugin.postEvents([
        { type: 'account.created', account: 'carol' },
        { type: 'domain.added', account: 'carol', domain: REFUSED },
        { type: 'domain.added', account: 'carol', domain: ALSO_REFUSED },
      ]);
      await plugin.idle();
      await withBrowser(async (context) => {
        const page = await context.newPage();
        await page.setViewportSize({ width: 1280, height: 900 });

        // The customer: the domain is listed, could not be protected, says why and what to do.
        await page.goto(launchUrl(plugin, customer('carol')));
        const row = page.getByRole('row', { name: new RegExp(REFUSED) });
        await expect.poll(() => row.textContent()).toContain('Could not protect');
        expect(await row.textContent()).toContain('does not resolve');
        expect(await row.textContent()).toContain(`Check the DNS of ${REFUSED}`);
        expect(await row.getByRole('button', { name: `Try again ${REFUSED}` }).count()).toBe(1);
        await screenshots(page, 'refused-customer-domains');
        await row.getByRole('link', { name: REFUSED }).click();
        await expect.poll(() => page.locator('h1').textContent()).toBe(REFUSED);
        await page.waitForLoadState('load');
        const main = await page.locator('main').textContent();
        expect(main).toContain('Could not protect');
        // Nothing of it is at the provider yet: no live read of its settings, no rules editor to open.
        expect(main).toContain(`Its settings can be changed once ${REFUSED} is protected.`);
        expect(await page.getByRole('link', { name: /rules editor/i }).count()).toBe(0);
        await screenshots(page, 'refused-customer-domain');

        // The admin: in error on the overview, found by search, the reason on its page.
        const adminPage = await context.newPage();
        await adminPage.setViewportSize({ width: 1280, height: 900 });
        await adminPage.goto(launchUrl(plugin, admin('alice-admin')));
        await adminPage.goto(`${plugin.url}/admin`);
        const inError = adminPage.locator('a.stat', { hasText: 'in error' });
        expect(await inError.textContent()).toMatch(/2\s*in error/);
        await screenshots(adminPage, 'refused-admin-overview');
        await adminPage.goto(`${plugin.url}/admin/websites?q=nowhere`);
        expect(await adminPage.locator('main').textContent()).toContain(REFUSED);
        await adminPage.getByRole('link', { name: REFUSED, exact: true }).click();
        await expect.poll(() => adminPage.locator('h1').textContent()).toBe(REFUSED);
        const refusal = adminPage.locator('#refusal');
        expect(await refusal.textContent()).toContain('domain_unresolvable');
        expect(await refusal.textContent()).toContain('does not resolve');
        await screenshots(adminPage, 'refused-admin-website');

        // Fixed at the DNS: the customer's Try again protects it (waiting for DNS, as any new domain).
        await sb.control('DELETE', '/_sandbox/nxdomain', { domains: [REFUSED, ALSO_REFUSED] });
        await page.getByRole('button', { name: `Try again ${REFUSED}` }).click();
        await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Trying again');
        await expect
          .poll(
            async () => {
              await page.reload();
              return page.locator('.state').first().textContent();
            },
            { timeout: 15_000 },
          )
          .toContain('Waiting for DNS');
        expect(await page.locator('main').textContent()).not.toContain('Could not protect');
        await screenshots(page, 'refused-customer-retried');

        // The admin's Retry of the other one.
        await adminPage.goto(`${plugin.url}/admin/websites/${ALSO_REFUSED}`);
        await adminPage.getByRole('button', { name: 'Retry' }).click();
        await expect
          .poll(
            async () => {
              await adminPage.goto(`${plugin.url}/admin/websites/${ALSO_REFUSED}`);
              return adminPage.locator('.badge').first().textContent();
            },
            { timeout: 15_000 },
          )
          .toContain('Waiting for DNS');
        await adminPage.goto(`${plugin.url}/admin`);
        expect(await inError.textContent()).toMatch(/0\s*in error/);
      });
    });
  });
});
