/**
 * The customer's domain page in each language (issue 21, in the user's language): a protected
 * website with traffic, mitigation figures and attack spikes, its settings form (and the form
 * sent back with problems, its error summary first), the notes on the stored settings (as of
 * when, the provider down) and the rules editor page. The state, usage and action parts of the
 * page are another group's (their own test).
 *
 * How "untranslated" is found: test/helpers/i18n-check.ts.
 */
import { describe, expect, it } from 'vitest';
import { expectTranslated, openInLocale, type PageVisit } from '../helpers/i18n-check.js';
import { textOf } from '../helpers/page-client.js';
import { protectedWebsite, withPlugin } from '../helpers/plugin.js';
import { waitFor } from '../helpers/wait.js';

const DOMAIN = 'lena.example';
const PAGE = `/panel/domains/${DOMAIN}`;
const OTHER = 'other.example';
const LATER = 'later.example';
const NINA = 'nina.example';

/** A form that fails every check a customer can trip: a policy and an issuer unknown, addresses that are none. */
const BAD_FORM = {
  rule_humans: 'maybe',
  subdomains: 'not a subdomain!',
  ipv4: '300.1.2.3',
  ipv6: 'fe80::zz',
  certs_issuer: 'self-made',
};
const BAD_ISSUER = { rule_humans: 'grant', ipv4: '192.0.2.5', certs_issuer: 'custom' };

const PAGES: PageVisit[] = [
  { name: 'domain page, last 24 hours', as: 'customer', account: 'lena', path: PAGE, status: 200 },
  { name: 'domain page, last 7 days', as: 'customer', account: 'lena', path: `${PAGE}?range=7d`, status: 200 },
  { name: 'domain page, last 30 days', as: 'customer', account: 'lena', path: `${PAGE}?range=30d`, status: 200 },
  {
    name: 'settings sent back with problems',
    as: 'customer',
    account: 'lena',
    path: PAGE,
    post: `${PAGE}/settings`,
    fields: BAD_FORM,
    status: 400,
  },
  {
    name: 'settings: own certificate without one',
    as: 'customer',
    account: 'lena',
    path: PAGE,
    post: `${PAGE}/settings`,
    fields: BAD_ISSUER,
    status: 400,
  },
  { name: 'rules editor', as: 'customer', account: 'lena', path: `${PAGE}/rules`, status: 200 },
];

/** Real data on the pages: the domains, the account, and what the user typed that the messages quote. */
const DATA = [DOMAIN, OTHER, LATER, NINA, 'nina', 'not a subdomain!', '300.1.2.3', 'fe80::zz', 'lena'];

/** Waits until the domain page shows `text` in English (a read behind the page stored or failed). */
const pageShows = (plugin: Parameters<typeof openInLocale>[0], text: string) =>
  waitFor(async () => textOf((await openInLocale(plugin, PAGES[0] as PageVisit, 'en')).body).includes(text) || undefined, 20_000, text);

describe('the domain page in each language', () => {
  it('shows traffic, mitigation, attacks, the settings form, its problems and the rules editor with nothing untranslated', async () => {
    await withPlugin(async (plugin, sb) => {
      await protectedWebsite(plugin, sb, 'lena', DOMAIN);
      await plugin.syncStatistics();
      await sb.control('POST', `/_sandbox/websites/${DOMAIN}/traffic`, {
        hits: 1000,
        blocked: 120,
        mitigated: 30,
        category: 'content_scrapers',
      });
      await sb.control('POST', `/_sandbox/websites/${DOMAIN}/traffic`, { hits: 500, blocked: 5, mitigated: 7, category: 'humans' });
      await plugin.syncStatistics();
      const now = Date.now();
      const spike = (startedAt: number, blockedPerHour: number, baselinePerHour: number) => ({
        domain: DOMAIN,
        account: 'lena',
        kind: 'attack_spike' as const,
        startedAt,
        blockedPerHour,
        baselinePerHour,
      });
      const page = { websites: [], accounts: [], groups: [] };
      plugin.schedule.save({ ...page, spikesStarted: [spike(now - 26 * 3_600_000, 900, 12)], spikesEnded: [] });
      plugin.schedule.save({
        ...page,
        spikesStarted: [],
        spikesEnded: [{ domain: DOMAIN, startedAt: now - 26 * 3_600_000, at: now - 25 * 3_600_000 }],
      });
      plugin.schedule.save({ ...page, spikesStarted: [spike(now - 95 * 60_000, 12_500, 40)], spikesEnded: [] });
      // The settings read once and stored: the page then shows them "as of" that read.
      await pageShows(plugin, 'Settings as of');
      const english = textOf((await openInLocale(plugin, PAGES[0] as PageVisit, 'en')).body);
      expect(english).toContain('Attack in progress since');
      expect(english).toContain('Recent attacks (last 7 days)');
      expect(english).toContain('challenged with a captcha');

      await expectTranslated(plugin, PAGES, DATA);
    });
  }, 120_000);

  it('says in each language why settings may be out of date or cannot be shown: the provider down or slow, the domain not protected yet', async () => {
    await withPlugin(async (plugin, sb) => {
      await protectedWebsite(plugin, sb, 'lena', DOMAIN);
      // Protected, never opened: no settings stored for it.
      await protectedWebsite(plugin, sb, 'lena', OTHER);
      await pageShows(plugin, 'Settings as of');
      await sb.control('POST', '/_sandbox/faults', { mode: 'down' });
      await pageShows(plugin, 'did not answer');
      // Added while the provider is down: not protected, so no settings to read.
      // And an account set up while it is down: no key at the provider yet, so no rules editor to open.
      await plugin.postEvents([
        { type: 'domain.added', account: 'lena', domain: LATER },
        { type: 'account.created', account: 'nina' },
        { type: 'domain.added', account: 'nina', domain: NINA },
      ]);
      await plugin.idle();
      const visit = PAGES[0] as PageVisit;
      const down = { ...visit, name: 'no settings stored, provider down', path: `/panel/domains/${OTHER}` };
      const later = { ...visit, name: 'not protected yet', path: `/panel/domains/${LATER}` };
      expect(textOf((await openInLocale(plugin, down, 'en')).body)).toContain(
        'The protection service did not answer properly. The settings cannot be shown until the protection service answers; reload the page in a minute.',
      );
      expect(textOf((await openInLocale(plugin, later, 'en')).body)).toContain(`Its settings can be changed once ${LATER} is protected.`);
      const noEditor: PageVisit = {
        name: 'rules editor not available',
        as: 'customer',
        account: 'nina',
        path: `/panel/domains/${NINA}/rules`,
        status: 200,
      };
      expect(textOf((await openInLocale(plugin, noEditor, 'en')).body)).toContain('The rules editor is not available for this domain yet.');
      // The domain added while the provider was down could not be protected: the provider's reason is quoted as it gave it.
      const providerReason = 'The service is temporarily unavailable';
      await expectTranslated(
        plugin,
        [{ ...visit, name: 'settings as of, provider down' }, down, later, noEditor],
        [...DATA, providerReason],
      );

      // Slow: the first read of a website takes longer than the page waits for it.
      await sb.control('POST', '/_sandbox/faults', { mode: 'slow', delayMs: 8000 });
      const slow = { ...visit, name: 'settings being read', path: `/panel/domains/${OTHER}` };
      expect(textOf((await openInLocale(plugin, slow, 'en')).body)).toContain('The settings are being read from the protection service');
      await expectTranslated(plugin, [slow], DATA);
      await sb.control('POST', '/_sandbox/faults', { mode: 'none' });
    });
  }, 120_000);
});
