/**
 * The admin's overview, websites list and a website's page in German, in a real browser: a
 * launch with locale `de` shows their headings, figures, filters, buttons and the message after
 * the admin's pause in German; each page is screenshot at 1280 and 390 px and audited by axe-core
 * (issue 21, in the user's language).
 */
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { admin, launchUrl, screenshots } from '../helpers/pages.js';
import { protectedWebsite, withPlugin } from '../helpers/plugin.js';

describe('the admin overview and websites pages in German', () => {
  it(
    'shows the overview, the websites list and a website page in German, and the message after a pause',
    { timeout: 120_000 },
    async () => {
      await withPlugin(async (plugin, sb) => {
        await protectedWebsite(plugin, sb, 'greta', 'greta.example');
        await protectedWebsite(plugin, sb, 'greta', 'laden.example');
        await plugin.postEvents([{ type: 'domain.added', account: 'greta', domain: 'wartet.example' }]);
        await plugin.idle();
        await plugin.syncStatistics();
        await plugin.enforceLimits();

        await withBrowser(async (context) => {
          const page = await context.newPage();
          await page.setViewportSize({ width: 1280, height: 900 });
          await page.goto(launchUrl(plugin, { ...admin(), locale: 'de' }, { next: '/admin' }));
          expect(await page.getAttribute('html', 'lang')).toBe('de');
          expect(await page.locator('h1').textContent()).toBe('Übersicht');
          expect(await page.locator('h2').allTextContents()).toEqual([
            'Websites',
            'Konten und Anbieter',
            'Aufträge und Durchsetzung heute',
          ]);
          const figures = (await page.locator('.stats').allTextContents()).join(' ');
          expect(figures).toContain('aktive Websites');
          expect(figures).toContain('Erreichbar');
          expect(figures).toMatch(/Letzter Abgleich (gerade eben|vor \d+ Minuten?): 3 gelesen, 0 fehlgeschlagen/);
          await screenshots(page, 'i18n-de-admin-overview');

          await page.goto(`${plugin.url}/admin/websites?quota=near_or_over`);
          expect(await page.locator('h1').textContent()).toBe('Websites');
          expect(await page.getByLabel('Domain oder Konto').count()).toBe(1);
          expect(await page.getByLabel('Pausiert durch').locator('option').first().textContent()).toBe('beliebig oder niemand');
          expect(await page.getByRole('button', { name: 'Suchen' }).count()).toBe(1);
          expect(await page.locator('tbody').textContent()).toContain('Keine Website passt.');
          await page.goto(`${plugin.url}/admin/websites`);
          expect(await page.locator('thead').textContent()).toContain('Zugriffe in diesem Zeitraum');
          await screenshots(page, 'i18n-de-admin-websites');

          await page.getByRole('link', { name: 'laden.example' }).click();
          expect(await page.locator('h1').textContent()).toBe('laden.example');
          await page.getByRole('button', { name: 'Pausieren' }).click();
          await page.waitForURL(/done=paused/);
          expect(await page.getByRole('status').first().textContent()).toContain(
            'Beim Anbieter pausiert. Nur ein Admin setzt sie jetzt fort.',
          );
          expect(await page.getByRole('button', { name: 'Fortsetzen' }).count()).toBe(1);
          expect(await page.locator('dl.facts').first().textContent()).toContain('pausiert durch Admin');
          await screenshots(page, 'i18n-de-admin-website');
        });
      });
    },
  );
});
