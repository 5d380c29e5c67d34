/**
 * Every page converted to the message catalogs (locales/), in each supported language: no
 * message is left untranslated, `<html lang>` says the language, and a language the plugin
 * lacks falls back to English (issue 21, in the user's language).
 *
 * How "untranslated" is found: test/helpers/i18n-check.ts.
 */
import { describe, expect, it } from 'vitest';
import { expectTranslated, type PageVisit } from '../helpers/i18n-check.js';
import { admin, customer, launchUrl } from '../helpers/pages.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { protectedWebsite, withPlugin } from '../helpers/plugin.js';

/** The pages of the layout, the sign-in and its errors, and the admin's accounts, jobs and runs (each area's own list is in its test). */
const PAGES: PageVisit[] = [
  { name: 'home', as: 'nobody', path: '/', status: 200 },
  { name: 'launch link without a token', as: 'nobody', path: '/launch', status: 400 },
  { name: 'launch link refused', as: 'nobody', path: '/launch?token=not.a-token', status: 401 },
  { name: 'session ended', as: 'nobody', path: '/panel', status: 401 },
  { name: 'not found', as: 'admin', path: '/admin/no-such-page', status: 404 },
  { name: 'accounts', as: 'admin', path: '/admin/accounts', status: 200 },
  { name: 'accounts, page 2', as: 'admin', path: '/admin/accounts?page=2', status: 200 },
  { name: 'accounts, search too short', as: 'admin', path: '/admin/accounts?q=a', status: 200 },
  { name: 'jobs', as: 'admin', path: '/admin/jobs', status: 200 },
  { name: 'jobs, one retried', as: 'admin', path: '/admin/jobs?retried=1&job=7', status: 200 },
  { name: 'jobs, several retried', as: 'admin', path: '/admin/jobs?retried=3', status: 200 },
  { name: 'jobs, none to retry', as: 'admin', path: '/admin/jobs?retried=0', status: 200 },
  { name: 'jobs, retry of a job that is not dead', as: 'admin', path: '/admin/jobs', post: '/admin/jobs/1/retry', status: 409 },
  { name: 'runs and the enforcement log', as: 'admin', path: '/admin/runs', status: 200 },
  { name: 'account suspended', as: 'customer', path: '/panel', status: 403 },
  { name: 'signed out', as: 'admin', path: '/admin/jobs', post: '/admin/logout', status: 200 },
];

describe('the pages in each language', () => {
  it('shows every converted page in English, German and Spanish, with nothing left untranslated', async () => {
    await withPlugin(async (plugin) => {
      // 55 accounts (two pages of the accounts list), one of them suspended; runs and an enforcement action for the log.
      const accounts = Array.from({ length: 55 }, (_, i) => ({ type: 'account.created', account: `acct${String(i).padStart(2, '0')}` }));
      await plugin.postEvents([
        ...accounts,
        { type: 'account.created', account: 'sam' },
        { type: 'domain.added', account: 'acct00', domain: 'acct00.example' },
      ]);
      await plugin.idle();
      await plugin.syncStatistics();
      await plugin.enforceLimits();
      await plugin.adminResume('acct00.example', 'alice-admin');
      await plugin.postEvents([{ type: 'account.suspended', account: 'sam' }]);
      await plugin.idle();

      await expectTranslated(plugin, PAGES);
    });
  }, 60_000);

  it('falls back to English for a language the plugin lacks, and reads de-AT as German', async () => {
    await withPlugin(async (plugin) => {
      const inLocale = async (locale: string) => {
        const client = createPageClient(plugin.url);
        expect((await client.get(launchUrl(plugin, { ...admin(), locale }))).status).toBe(303);
        return client.get('/admin/jobs');
      };
      for (const locale of ['fr', 'pt-BR']) {
        const page = await inLocale(locale);
        expect(page.body, locale).toContain('<html lang="en">');
        expect(textOf(page.body), locale).toContain('No dead job.');
      }
      const austrian = await inLocale('de-AT');
      expect(austrian.body).toContain('<html lang="de">');
      expect(textOf(austrian.body)).toContain('Kein gescheiterter Auftrag.');

      // Without a session, the browser's languages decide: its first the plugin has.
      const home = async (acceptLanguage: string) =>
        (await fetch(`${plugin.url}/`, { headers: { 'accept-language': acceptLanguage } }).then((r) => r.text())).match(
          /<html lang="(\w+)">/,
        )?.[1];
      expect(await home('fr-FR,fr;q=0.9')).toBe('en');
      expect(await home('fr-FR,es;q=0.8,en;q=0.5')).toBe('es');
      expect(await home('de-AT')).toBe('de');
    });
  });

  it("gives the provider's rules editor frame the page's language through {lang}, and the sandbox's editor opens in it", async () => {
    await withPlugin(async (plugin, sb) => {
      await protectedWebsite(plugin, sb, 'lena', 'lena.example');
      for (const [locale, lang] of [
        ['de-AT', 'de'],
        ['es', 'es'],
        ['fr', 'en'],
      ] as const) {
        const client = createPageClient(plugin.url);
        expect((await client.get(launchUrl(plugin, { ...customer('lena'), locale }))).status).toBe(303);
        const page = await client.get('/panel/domains/lena.example/rules');
        const frame = /<iframe[^>]* src="([^"]+)"/.exec(page.body)?.[1]?.replaceAll('&amp;', '&');
        expect(frame, locale).toMatch(new RegExp(`/${lang}/website/lena\\.example/edit\\?api-key=`));
        expect((await fetch(frame as string)).status, locale).toBe(200);
      }
    });
  });
});
