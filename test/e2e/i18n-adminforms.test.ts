/**
 * The admin's forms in German, in a real browser (issue 21, in the user's language): Settings
 * sent back with problems (the summary names each field by its German label), bulk protect's
 * preview, and the demo panel with a refused form and a domain's next step. Each page is
 * screenshot at 1280 and 390 px and audited by axe-core.
 */
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { admin, launchUrl, screenshots } from '../helpers/pages.js';
import { withDemoPlugin, withPlugin } from '../helpers/plugin.js';
import { waitFor } from '../helpers/wait.js';

describe('the admin forms in German', () => {
  it('show Settings with its problems and bulk protect in German', { timeout: 120_000 }, async () => {
    await withPlugin(
      async (plugin) => {
        await plugin.postEvents([
          { type: 'account.created', account: 'greta' },
          { type: 'domain.added', account: 'greta', domain: 'greta.example' },
          { type: 'domain.added', account: 'greta', domain: 'shop.greta.example' },
        ]);
        await plugin.idle();
        await withBrowser(async (context) => {
          const page = await context.newPage();
          await page.setViewportSize({ width: 1280, height: 900 });
          await page.goto(launchUrl(plugin, { ...admin(), locale: 'de' }, { next: '/admin/settings' }));
          expect(await page.getAttribute('html', 'lang')).toBe('de');
          expect(await page.locator('h1').textContent()).toBe('Einstellungen');

          await page.selectOption('#limit-scope', 'account');
          await page.fill('#limit-subject', 'niemand');
          await page.fill('#limit-website-hits', 'viele');
          await page.getByRole('button', { name: 'Limits speichern' }).click();
          const summary = page.locator('#error-summary-title');
          await expect.poll(() => summary.textContent()).toBe('Nichts wurde gespeichert: Bitte korrigieren Sie Folgendes');
          const items = (await page.locator('.error-summary li, [aria-labelledby="error-summary-title"] li').allTextContents()).join(' | ');
          expect(items).toContain('Zugriffe je Website: "viele" ist keine ganze Zahl');
          expect(items).toContain('Gegenstand: das Plugin kennt kein Konto "niemand"');
          await screenshots(page, 'i18n-de-admin-settings-problems');

          await page.goto(`${plugin.url}/admin/bulk-protect`);
          expect(await page.locator('h1').textContent()).toBe('Sammelschutz');
          const changes = (await page.locator('section[aria-labelledby="confirm-title"] li').allTextContents()).join(' ');
          expect(changes).toContain('2 Websites werden beim Schutzdienst von „nicht geschützt“ auf „geschützt“ umgestellt.');
          expect(await page.getByRole('button', { name: '2 Domains schützen' }).count()).toBe(1);
          await screenshots(page, 'i18n-de-admin-bulk-protect');

          await page.getByRole('button', { name: '2 Domains schützen' }).click();
          await expect
            .poll(() => page.getByRole('status').first().textContent())
            .toContain('In die Warteschlange gestellt: 2 Websites zum Schützen, 0 fehlgeschlagene Einrichtungen zum erneuten Versuch.');
        });
      },
      { env: { WPP_AUTO_PROTECT: 'false' } },
    );
  });

  it('shows the demo panel in German: its steps, a refused form and a domain’s next step', { timeout: 120_000 }, async () => {
    await withDemoPlugin(async (plugin) => {
      await withBrowser(async (context) => {
        const page = await context.newPage();
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.goto(launchUrl(plugin, { ...admin('demo-admin'), locale: 'de' }, { next: '/admin/demo' }));
        expect(await page.locator('h1').textContent()).toBe('Demo-Panel');
        expect(await page.locator('h2').allTextContents()).toContain('1. Ein Konto anlegen');

        await page.fill('#demo-account', 'greta');
        await page.getByRole('button', { name: 'Konto anlegen' }).click();
        await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Das Konto wurde an das Plugin gesendet');
        await waitFor(() => plugin.accounts.getAccount('greta') !== null, 10_000, 'greta');
        await page.fill('#demo-domain', 'greta.example');
        await page.getByRole('button', { name: 'Domain hinzufügen' }).click();
        await waitFor(() => Boolean(plugin.accounts.getWebsite('greta.example')?.providerStatus), 10_000, 'greta.example');
        await page.goto(`${plugin.url}/admin/demo`);
        const next = (await page.locator('td.small').allTextContents()).join(' ');
        expect(next).toMatch(/Die Domain muss auf den Anbieter zeigen|Ein Auftrag legt sie beim Anbieter an/);

        await page.fill('#demo-hits', 'viele');
        await page.fill('#demo-traffic-domain', 'greta.example');
        await page.getByRole('button', { name: 'Besucher schicken' }).click();
        await expect.poll(() => page.locator('#demo-hits-problem').textContent()).toBe('„Zugriffe“ muss eine ganze Zahl sein');
        await screenshots(page, 'i18n-de-admin-demo');
      });
    });
  });
});
