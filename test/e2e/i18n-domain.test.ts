/**
 * The customer's domain page in German, in a real browser: the traffic chart (its legend from
 * the page's words, not uPlot's or the script's English), the mitigation figures, the settings
 * form, the form sent back with its error summary, and "Saving…" while the form is sent. Each
 * page is screenshot at 1280 and 390 px and audited by axe-core (issue 21, in the user's language).
 */
import { describe, expect, it } from 'vitest';
import { withBrowser } from '../helpers/browser.js';
import { customer, launchUrl, screenshots } from '../helpers/pages.js';
import { protectedWebsite, withPlugin } from '../helpers/plugin.js';

const DOMAIN = 'greta.example';

describe('the domain page in German', () => {
  it(
    'shows the chart, the figures, the settings and their problems in German, and says "Wird gespeichert…" while saving',
    { timeout: 120_000 },
    async () => {
      await withPlugin(async (plugin, sb) => {
        await protectedWebsite(plugin, sb, 'greta', DOMAIN);
        await plugin.syncStatistics();
        await sb.control('POST', `/_sandbox/websites/${DOMAIN}/traffic`, {
          hits: 1000,
          blocked: 120,
          mitigated: 30,
          category: 'content_scrapers',
        });
        await plugin.syncStatistics();

        await withBrowser(async (context) => {
          const page = await context.newPage();
          await page.setViewportSize({ width: 1280, height: 900 });
          await page.goto(launchUrl(plugin, { ...customer('greta'), locale: 'de' }, { next: `/panel/domains/${DOMAIN}` }));
          expect(await page.getAttribute('html', 'lang')).toBe('de');
          expect(await page.locator('main h2').allTextContents()).toEqual(
            expect.arrayContaining(['Datenverkehr', 'Was der Schutz abgehalten hat', 'Einstellungen']),
          );
          // The chart drawn, its legend in the page's words.
          await page.locator('#hits-chart.drawn').waitFor();
          const legend = (await page.locator('#hits-chart .u-legend').textContent()) ?? '';
          expect(legend).toContain('Zeit');
          expect(legend).toContain('Durchgelassen');
          expect(legend).toContain('Blockiert');
          expect(legend).not.toMatch(/Permitted|Blocked|Time|Value/);
          expect(await page.getAttribute('#hits-chart', 'aria-label')).toBe(
            'Zugriffe pro Stunde, letzte 24 Stunden: durchgelassen und blockiert',
          );
          expect(await page.locator('table.categories tbody').textContent()).toContain('Inhaltskopierer');
          expect(await page.getByLabel('Menschen', { exact: true }).count()).toBe(1);
          await screenshots(page, 'i18n-de-domain');

          // Sent back with a problem: the summary first, in German, naming the field by its German label.
          await page.getByLabel('IPv4-Adressen Ihres Servers').fill('300.1.2.3');
          await page.getByRole('button', { name: 'Einstellungen speichern' }).click();
          await page.locator('#error-summary').waitFor();
          expect(await page.locator('#error-summary h2').textContent()).toBe(
            'Es wurde nichts gespeichert: Bitte korrigieren Sie Folgendes',
          );
          expect(await page.locator('#error-summary li').allTextContents()).toEqual([
            'IPv4-Adressen Ihres Servers: „300.1.2.3“ ist keine IPv4-Adresse',
          ]);
          await screenshots(page, 'i18n-de-domain-settings-errors');

          // While the form is sent the page says so in German. The browser runs no script for the
          // test while a form's navigation is pending (reading the page then timed out now and
          // again): a recorder in the page writes what the form shows into the tab's sessionStorage,
          // which the next page still has, as in forms.test.ts.
          await page.getByLabel('IPv4-Adressen Ihres Servers').fill('192.0.2.10');
          await page.evaluate(() => {
            /* eslint-disable @typescript-eslint/no-explicit-any */
            const g = globalThis as any;
            const form = g.document.querySelector('form.settings');
            const record = () => {
              const seen = JSON.parse(g.sessionStorage.getItem('progress') ?? '[]');
              seen.push(form.querySelector('.form-progress')?.textContent ?? null);
              g.sessionStorage.setItem('progress', JSON.stringify(seen));
            };
            new g.MutationObserver(record).observe(form, { subtree: true, childList: true, characterData: true });
            /* eslint-enable @typescript-eslint/no-explicit-any */
          });
          await sb.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 1000 });
          const save = page.getByRole('button', { name: 'Einstellungen speichern' });
          await save.scrollIntoViewIfNeeded();
          const box = await save.boundingBox();
          if (!box) throw new Error('no save button on the page');
          // The mouse itself (a locator's click would wait for the navigation to finish).
          await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
          await page.waitForURL(/done=saved/, { timeout: 20_000 });
          await sb.control('POST', '/_sandbox/faults', { mode: 'none' });
          const progress = JSON.parse(
            (await page.evaluate(() =>
              (globalThis as unknown as { sessionStorage: { getItem(k: string): string | null } }).sessionStorage.getItem('progress'),
            )) ?? '[]',
          );
          expect(progress).toContain('Wird gespeichert…');
        });
      });
    },
  );
});
