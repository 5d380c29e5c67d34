/**
 * The admin's overview, websites list and website pages in each language (issue 21, in the
 * user's language): every figure of the overview and each state of the provider's contact, the
 * list with its search, filters, sorting and pages, a website protected, paused by the admin,
 * refused (with Retry), monitoring (with its end) and removed, and the messages after the
 * admin's pause, resume and retry.
 *
 * How "untranslated" is found: test/helpers/i18n-check.ts.
 */
import { describe, expect, it } from 'vitest';
import { seedViewsDatabase } from '../../bench/lib/views-seed.js';
import { PROVIDER_ANSWERED_AT } from '../../src/db/accounts.repo.js';
import { expectTranslated, type PageVisit } from '../helpers/i18n-check.js';
import { admin, launchUrl } from '../helpers/pages.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { protectedWebsite, startTestPlugin, withPlugin } from '../helpers/plugin.js';
import { removeTempDir, withSandbox } from '../helpers/sandbox.js';

const WEBSITE = '/admin/websites';

/** The pages of this group, with the seeded fleet below. */
const PAGES: PageVisit[] = [
  { name: 'overview', as: 'admin', path: '/admin', status: 200 },
  { name: 'websites', as: 'admin', path: WEBSITE, status: 200 },
  { name: 'websites, page 2', as: 'admin', path: `${WEBSITE}?page=2`, status: 200 },
  { name: 'websites, search too short', as: 'admin', path: `${WEBSITE}?q=a`, status: 200 },
  { name: 'websites, search anywhere', as: 'admin', path: `${WEBSITE}?q=views&match=contains`, status: 200 },
  { name: 'websites, no match', as: 'admin', path: `${WEBSITE}?q=zz`, status: 200 },
  { name: 'websites, filtered', as: 'admin', path: `${WEBSITE}?state=paused&paused=admin&quota=near_or_over`, status: 200 },
  { name: 'websites, near the limit', as: 'admin', path: `${WEBSITE}?quota=near&sort=usage&dir=desc`, status: 200 },
  { name: 'websites, over the limit', as: 'admin', path: `${WEBSITE}?quota=over&sort=status`, status: 200 },
  { name: 'websites of an account', as: 'admin', path: `${WEBSITE}?account=customer3&sort=updated&dir=desc`, status: 200 },
  { name: 'website protected', as: 'admin', path: `${WEBSITE}/lena.example`, status: 200 },
  { name: 'website paused by the admin', as: 'admin', path: `${WEBSITE}/held.example`, status: 200 },
  { name: 'website refused, with Retry', as: 'admin', path: `${WEBSITE}/nowhere.example`, status: 200 },
  { name: 'website monitoring, with its end', as: 'admin', path: `${WEBSITE}/watch.example`, status: 200 },
  { name: 'website of a suspended account', as: 'admin', path: `${WEBSITE}/sus.example`, status: 200 },
  { name: 'website removed', as: 'admin', path: `${WEBSITE}/gone.example`, status: 200 },
  { name: 'website near its limit, with a forecast', as: 'admin', path: `${WEBSITE}/blog-11.views.example`, status: 200 },
  { name: 'website in error', as: 'admin', path: `${WEBSITE}/delta-13.views.example`, status: 200 },
  { name: 'website paused, message', as: 'admin', path: `${WEBSITE}/held.example?done=paused&job=4`, status: 200 },
  { name: 'website resumed, message', as: 'admin', path: `${WEBSITE}/lena.example?done=resumed`, status: 200 },
  { name: 'website queued again, message', as: 'admin', path: `${WEBSITE}/nowhere.example?done=reprovisioned&job=9`, status: 200 },
  { name: 'no such website', as: 'admin', path: `${WEBSITE}/no-such.example`, status: 404 },
];

/**
 * Data, not messages: the admin's name (and as the enforcement log records who acted), and the
 * provider's reason for refusing nowhere.example, quoted as it gave it.
 */
const DATA = ['admin:alice-admin', 'alice-admin', 'The domain nowhere.example does not exist or does not resolve'];

async function overviewIn(plugin: { url: string; dataDir: string }, locale: string): Promise<string> {
  const client = createPageClient(plugin.url);
  expect((await client.get(launchUrl(plugin, { ...admin(), locale }))).status).toBe(303);
  return textOf((await client.get('/admin')).body);
}

describe('the admin overview and websites pages in each language', () => {
  it('shows the overview, the websites list and website pages in every state in English, German and Spanish', async () => {
    await withPlugin(async (plugin, sb) => {
      plugin.accounts.savePlan({ name: 'gold', settings: {}, subdomains: ['www'], monitorDays: 3 });
      await sb.control('POST', '/_sandbox/nxdomain', { domains: ['nowhere.example'] });
      await protectedWebsite(plugin, sb, 'lena', 'lena.example');
      await protectedWebsite(plugin, sb, 'lena', 'held.example');
      await protectedWebsite(plugin, sb, 'sus', 'sus.example');
      await protectedWebsite(plugin, sb, 'lena', 'gone.example');
      await plugin.postEvents([
        { type: 'domain.added', account: 'lena', domain: 'nowhere.example' },
        { type: 'account.created', account: 'carl', plan: 'gold' },
        { type: 'domain.added', account: 'carl', domain: 'watch.example' },
        { type: 'account.created', account: 'erin' },
        { type: 'domain.removed', account: 'lena', domain: 'gone.example' },
        { type: 'account.suspended', account: 'sus' },
        { type: 'account.deleted', account: 'erin' },
      ]);
      await plugin.idle();
      // The admin pauses held.example on its page, and resumes lena.example (an enforcement action today).
      const client = createPageClient(plugin.url);
      expect((await client.get(launchUrl(plugin, admin()))).status).toBe(303);
      await client.get(`${WEBSITE}/held.example`);
      expect((await client.post(`${WEBSITE}/held.example/pause`)).status).toBe(303);
      await plugin.adminResume('lena.example', 'alice-admin');
      await plugin.syncStatistics();
      await plugin.enforceLimits();
      // A fleet for the list's pages, filters and limits: paused by each, waiting for DNS, in error, removed, near and over.
      seedViewsDatabase(plugin.db, { n: 120, accounts: 10, days: 1 });
      expect(plugin.accounts.getWebsite('held.example')).toMatchObject({ pausedBy: 'admin' });
      expect(plugin.accounts.getWebsite('nowhere.example')?.provisioningFailure).toMatchObject({ code: 'domain_unresolvable' });

      await expectTranslated(plugin, PAGES, DATA);

      // Each branch the list above means to show is there, in German.
      const german = createPageClient(plugin.url);
      expect((await german.get(launchUrl(plugin, { ...admin(), locale: 'de' }))).status).toBe(303);
      const de = async (path: string) => textOf((await german.get(path)).body);
      const overview = await de('/admin');
      for (const words of [
        'aktive Websites (',
        'durch Admin, ',
        'warten auf DNS',
        'mit Fehler',
        'sonstige: ',
        'Konten: ',
        'gescheiterte Aufträge: ansehen',
      ])
        expect(overview).toContain(words);
      expect(overview).toMatch(/Letzter Abgleich (gerade eben|vor \d+ Minuten?): \d+ gelesen, 0 fehlgeschlagen/);
      expect(await de(`${WEBSITE}?page=2`)).toContain('Seite 2 von 3');
      expect(await de(`${WEBSITE}?q=a`)).toContain('Geben Sie zum Suchen mindestens 2 Zeichen ein');
      expect(await de(`${WEBSITE}?account=customer3`)).toMatch(/Websites des Kontos customer3 ?\./);
      expect(await de(`${WEBSITE}/held.example`)).toContain('Das Plugin verlangt pausiert (pausiert durch Admin)');
      const refused = await de(`${WEBSITE}/nowhere.example?done=reprovisioned&job=9`);
      expect(refused).toContain('Zur erneuten Einrichtung eingereiht. Auftrag #9.');
      expect(refused).toMatch(/Abgelehnt am .+, Code domain_unresolvable/);
      expect(refused).toContain('Erneut versuchen: Sendet die Website');
      const watched = await de(`${WEBSITE}/watch.example`);
      expect(watched).toMatch(/Überwachung bis .+ \(danach durch den Zeitplan geschützt\)/);
      expect(watched).toContain('Jetzt schützen');
      expect(await de(`${WEBSITE}/gone.example`)).toContain('Diese Website wurde entfernt');
      expect(await de(`${WEBSITE}/blog-11.views.example`)).toMatch(/Website-Limit: .+\. Bei der/);
    });
  }, 120_000);

  it("shows each state of the provider's contact in each language: reachable, quiet, never reached", async () => {
    await withPlugin(async (plugin) => {
      await plugin.idle();
      await expectTranslated(plugin, [{ name: 'overview, provider reachable', as: 'admin', path: '/admin', status: 200 }], DATA);
      // The provider last answered two hours ago (as another process of the data folder records it).
      plugin.db.prepare('UPDATE kv SET value = ? WHERE key = ?').run(String(Date.now() - 2 * 3_600_000), PROVIDER_ANSWERED_AT);
      await expectTranslated(plugin, [{ name: 'overview, provider quiet', as: 'admin', path: '/admin', status: 200 }], DATA);
      expect(await overviewIn(plugin, 'de')).toContain('Still');
    });
    await withSandbox(async (sandbox) => {
      const plugin = await startTestPlugin(sandbox, { env: { WPP_PROVIDER_API_KEY: 'not-the-partner-key' } });
      try {
        await expect.poll(() => plugin.jobs.list({ limit: 10 }).some((job) => job.attempts > 0), { timeout: 10_000 }).toBe(true);
        await expectTranslated(plugin, [{ name: 'overview, provider never reached', as: 'admin', path: '/admin', status: 200 }], DATA);
        expect(await overviewIn(plugin, 'es')).toContain('Nunca contactado');
      } finally {
        await plugin.close();
        removeTempDir(plugin.dataDir);
      }
    });
  }, 60_000);
});
