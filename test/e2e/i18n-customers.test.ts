/**
 * The customer's My domains and the pause confirmation in German, in a real browser (issue 21,
 * in the user's language): the account header, the table's headings and each website's state in
 * German, Pause asked first in German, and the message after it. Each page is screenshot at 1280
 * and 390 px and audited by axe-core (`i18n-de-customer-*.png`).
 */
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { customer, launchUrl, screenshots } from '../helpers/pages.js';
import { protectedWebsite, withPlugin } from '../helpers/plugin.js';

describe('the customer pages in German', () => {
  it('show My domains with its states, the pause confirmation and the message after pausing in German', { timeout: 120_000 }, async () => {
    await withPlugin(async (plugin, sb) => {
      // greta.example protected and near its limit; shop.example paused by the hit limit; watch.example monitoring; new.example waiting for DNS.
      await protectedWebsite(plugin, sb, 'greta', 'greta.example');
      await plugin.postEvents(
        ['shop.example', 'watch.example', 'new.example'].map((domain) => ({ type: 'domain.added', account: 'greta', domain })),
      );
      await plugin.idle();
      await plugin.syncStatistics();
      await sb.control('POST', '/_sandbox/websites/greta.example/traffic', { hits: 900 });
      await plugin.syncStatistics();
      plugin.stats.setLimits('website', 'greta.example', { websiteHits: 1000 });
      plugin.stats.setLimits('account', 'greta', { accountHits: 5000 });
      const leave = (domain: string, fields: { pausedBy: 'enforcement' | null }) => {
        const website = plugin.accounts.getWebsite(domain);
        if (!website) throw new Error(`${domain} was not set up`);
        plugin.accounts.saveWebsite({ ...website, desiredStatus: 'paused', providerStatus: 'paused', ...fields });
      };
      leave('shop.example', { pausedBy: 'enforcement' });
      leave('watch.example', { pausedBy: null });

      await withBrowser(async (context) => {
        const page = await context.newPage();
        await page.setViewportSize({ width: 1280, height: 900 });
        await page.goto(launchUrl(plugin, { ...customer('greta'), locale: 'de' }));
        expect(await page.getAttribute('html', 'lang')).toBe('de');
        expect(await page.locator('h1').textContent()).toBe('Meine Domains');
        expect(await page.locator('#account-usage-title').textContent()).toBe('Ihr Konto in diesem Zeitraum');
        expect(await page.locator('.account-hits').textContent()).toBe('900 von 5.000 Zugriffen in diesem Zeitraum');
        expect((await page.locator('thead th').allTextContents()).map((s) => s.trim())).toEqual([
          'Domain',
          'Zustand',
          'Zugriffe in diesem Zeitraum',
          'Limit erreicht am',
          'Aktionen',
        ]);
        const badges = await page.locator('.domains .badge').allTextContents();
        expect(badges).toEqual(['Geschützt', 'Warten auf DNS', 'Pausiert: Zugriffslimit erreicht', 'Beobachtung']);
        expect(await page.locator('.near-limit').textContent()).toBe('Fast am Limit: Der Schutz wird bei 1.000 Zugriffen pausiert.');
        await screenshots(page, 'i18n-de-customer-my-domains');

        // Pause asks first, in German.
        await page.getByRole('button', { name: 'greta.example pausieren' }).click();
        expect(await page.getAttribute('html', 'lang')).toBe('de');
        expect(await page.locator('h1').textContent()).toBe('Schutz von greta.example pausieren?');
        expect(await page.getByRole('link', { name: 'Abbrechen' }).count()).toBe(1);
        await screenshots(page, 'i18n-de-customer-pause-confirm');

        await page.getByRole('button', { name: 'Schutz pausieren' }).click();
        expect(new URL(page.url()).pathname).toBe('/panel');
        expect(await page.locator('p.note[role="status"]').textContent()).toBe(
          'Schutz pausiert: Der Schutzdienst lässt jetzt jeden Besucher ungefiltert durch. Setzen Sie den Schutz fort, um Ihre Website wieder zu schützen.',
        );
        expect(await page.getByRole('button', { name: 'Schutz von greta.example fortsetzen' }).count()).toBe(1);
        await screenshots(page, 'i18n-de-customer-paused');
      });
    });
  });
});
