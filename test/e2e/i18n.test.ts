/**
 * The pages in German, in a real browser: a panel that knows its user reads German launches
 * with locale `de`, and the menu, the headings and the page's language are German (a screen
 * reader reads `<html lang="de">` with German pronunciation). Each page is screenshot at both
 * widths and audited by axe-core (issue 21, in the user's language).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { admin, customer, launchUrl, screenshots } from '../helpers/pages.js';
import { protectedWebsite, withPlugin } from '../helpers/plugin.js';

const menuOf = (page: Page) => page.locator('nav[aria-label="Hauptmenü"] a').allTextContents();

describe('the pages in German', () => {
  it('show the admin and the customer German menus, headings and messages, with <html lang="de">', { timeout: 120_000 }, async () => {
    await withPlugin(async (plugin, sb) => {
      await protectedWebsite(plugin, sb, 'greta', 'greta.example');
      await plugin.postEvents([{ type: 'account.created', account: 'hans' }]);
      await plugin.idle();
      await plugin.syncStatistics();
      await plugin.adminResume('greta.example', 'alice-admin');
      await plugin.postEvents([{ type: 'account.suspended', account: 'hans' }]);
      await plugin.idle();

      await withBrowser(async (context) => {
        const page = await context.newPage();
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.goto(launchUrl(plugin, { ...admin(), locale: 'de' }, { next: '/admin/jobs' }));
        expect(await page.getAttribute('html', 'lang')).toBe('de');
        expect(await menuOf(page)).toEqual([
          'Übersicht',
          'Websites',
          'Konten',
          'Aufträge',
          'Abgleich & Limits',
          'Einstellungen',
          'Sammelschutz',
          'Panel-Abgleich',
        ]);
        expect(await page.locator('h1').textContent()).toBe('Aufträge');
        expect(await page.getByRole('button', { name: 'Abmelden' }).count()).toBe(1);
        expect(await page.getByRole('link', { name: 'Zum Inhalt springen' }).count()).toBe(1);
        await screenshots(page, 'i18n-de-admin-jobs');

        await page.goto(`${plugin.url}/admin/accounts`);
        expect(await page.locator('h1').textContent()).toBe('Konten');
        expect(await page.locator('thead').textContent()).toContain('Zugriffe in diesem Zeitraum');
        await screenshots(page, 'i18n-de-admin-accounts');

        await page.goto(`${plugin.url}/admin/runs`);
        expect(await page.locator('h1').textContent()).toBe('Abgleich und Durchsetzung');
        expect(await page.locator('h2').allTextContents()).toEqual(['Durchläufe', 'Durchsetzungsprotokoll']);
        // The admin's resume in the log: its action and reason in German, the period as German dates.
        const log = (await page.locator('#log ~ .table-wrap tbody').textContent()) ?? '';
        expect(log).toContain('Fortsetzung durch Admin');
        expect(log).toMatch(/\d{1,2}\. \p{L}{3,4}\.? \d{4} bis \d{1,2}\. \p{L}{3,4}\.? \d{4}/u);
        await screenshots(page, 'i18n-de-admin-runs');

        await page.goto(`${plugin.url}/admin/no-such-page`);
        expect(await page.locator('h1').textContent()).toBe('Nicht gefunden');
        await screenshots(page, 'i18n-de-not-found');

        await page.getByRole('link', { name: 'Zurück zur Startseite' }).click();
        await page.getByRole('button', { name: 'Abmelden' }).click();
        expect(await page.locator('h1').textContent()).toBe('Abgemeldet');
        expect(await page.getAttribute('html', 'lang')).toBe('de');
        await screenshots(page, 'i18n-de-signed-out');

        await page.goto(launchUrl(plugin, { ...customer('greta'), locale: 'de-DE' }));
        expect(await page.getAttribute('html', 'lang')).toBe('de');
        expect(await menuOf(page)).toEqual(['Meine Domains']);
        await screenshots(page, 'i18n-de-customer-domains');

        await page.goto(launchUrl(plugin, { ...customer('hans'), locale: 'de' }));
        expect(await page.locator('h1').textContent()).toBe('Konto gesperrt');
        expect(await page.locator('.note').textContent()).toContain('Ihr Hosting-Konto ist gesperrt.');
        await screenshots(page, 'i18n-de-account-suspended');

        // A refused link has no session to say the language: the browser's does (here set to German).
        await page.route('**/*', (route) =>
          route.continue({ headers: { ...route.request().headers(), 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' } }),
        );
        await page.goto(`${plugin.url}/launch?token=expired.link`);
        expect(await page.getAttribute('html', 'lang')).toBe('de');
        expect(await page.locator('h1').textContent()).toBe('Bitte melden Sie sich erneut an');
        await screenshots(page, 'i18n-de-launch-refused');
      });
    });
  });
});
