/**
 * The customer's My domains page, the pause confirmation and the messages after an action, in
 * each language (issue 21, in the user's language): websites in every state a customer can see
 * (protected, monitoring, paused by the customer, the host, the hit limit, waiting for DNS,
 * setting up, refused with the provider's reason), near their limit and without one, so that
 * every sentence of website-state.ts, usage-words.ts and the forecast shows; and, on the domain
 * page, the hit limit's pause (with and without the host's upgrade page) and monitoring first.
 *
 * How "untranslated" is found: test/helpers/i18n-check.ts.
 */
import { describe, expect, it } from 'vitest';
import type { ProvisioningFailure, Website } from '../../src/core/types.js';
import { expectTranslated, openInLocale, type PageVisit } from '../helpers/i18n-check.js';
import { textOf } from '../helpers/page-client.js';
import { withPlugin } from '../helpers/plugin.js';

type Plugin = Parameters<Parameters<typeof withPlugin>[0]>[0];
type Sandbox = Parameters<Parameters<typeof withPlugin>[0]>[1];

/** The provider's reason, quoted as it gave it: data, not a message. */
const PROVIDER_REASON = 'Hostname blocklisted (policy 17)';

type StateFields = Partial<Pick<Website, 'desiredStatus' | 'pausedBy' | 'providerStatus' | 'provisionedAt'>> & {
  provisioningFailure?: ProvisioningFailure | null;
};

/** sam's domains, one per state, and how each is left. */
const SAM: Record<string, StateFields> = {
  'prot.example': { desiredStatus: 'online', pausedBy: null, providerStatus: 'online' },
  'watch.example': { desiredStatus: 'paused', pausedBy: null, providerStatus: 'paused' },
  'mine.example': { desiredStatus: 'paused', pausedBy: 'customer', providerStatus: 'paused' },
  'host.example': { desiredStatus: 'paused', pausedBy: 'admin', providerStatus: 'paused' },
  'suspend.example': { desiredStatus: 'paused', pausedBy: 'suspension', providerStatus: 'paused' },
  'limit.example': { desiredStatus: 'paused', pausedBy: 'enforcement', providerStatus: 'paused' },
  'dash.example': { desiredStatus: 'online', pausedBy: null, providerStatus: 'paused' },
  'dns.example': { desiredStatus: 'online', pausedBy: null, providerStatus: 'pending_dns' },
  'cert.example': { desiredStatus: 'online', pausedBy: null, providerStatus: 'issuing_certificate' },
  'err.example': { desiredStatus: 'online', pausedBy: null, providerStatus: 'error' },
  'gone.example': { desiredStatus: 'online', pausedBy: null, providerStatus: 'missing' },
  'off.example': { desiredStatus: 'setup', pausedBy: null, providerStatus: null },
  'setup.example': { provisionedAt: null, provisioningFailure: null },
  'refused.example': { provisionedAt: null, provisioningFailure: { code: 'validation_failed', reason: PROVIDER_REASON, at: 1 } },
  'nodns.example': { provisionedAt: null, provisioningFailure: { code: 'domain_unresolvable', reason: PROVIDER_REASON, at: 1 } },
  'full.example': { provisionedAt: null, provisioningFailure: { code: 'LIMIT_REACHED', reason: PROVIDER_REASON, at: 1 } },
};

const neverProvisioned = (fields: StateFields) => fields.provisionedAt === null;

/**
 * Leaves a provisioned website in the state of `fields`; one the provider never accepted is a
 * new row (a row's provisioned_at is never unset), refused with its failure when it has one.
 */
function leave(plugin: Plugin, domain: string, fields: StateFields) {
  const like = plugin.accounts.getWebsite(neverProvisioned(fields) ? 'prot.example' : domain);
  if (!like) throw new Error(`${domain} was not set up`);
  const { provisioningFailure, ...rest } = fields;
  if (!neverProvisioned(fields)) return plugin.accounts.saveWebsite({ ...like, ...rest });
  plugin.accounts.saveWebsite({
    ...like,
    domain,
    desiredStatus: 'online',
    pausedBy: null,
    providerStatus: null,
    callbackTokenHash: `unused-${domain}`,
    ...rest,
  });
  if (provisioningFailure) plugin.accounts.recordProvisioningFailure(domain, 'sam', provisioningFailure);
}

/**
 * sam: every state, prot.example near its limit and the account near its own; nia: no limit at
 * all; max: the account's limit reached.
 */
async function seed(plugin: Plugin, sb: Sandbox) {
  const domainsOf = (account: string, domains: string[]) => [
    { type: 'account.created', account },
    ...domains.map((domain) => ({ type: 'domain.added', account, domain })),
  ];
  await plugin.postEvents([
    ...domainsOf(
      'sam',
      Object.keys(SAM).filter((domain) => !neverProvisioned(SAM[domain] as StateFields)),
    ),
    ...domainsOf('nia', ['nia.example']),
    ...domainsOf('max', ['max.example']),
  ]);
  await plugin.idle();
  await plugin.syncStatistics();
  await sb.control('POST', '/_sandbox/websites/prot.example/traffic', { hits: 900 });
  await sb.control('POST', '/_sandbox/websites/nia.example/traffic', { hits: 1200 });
  await sb.control('POST', '/_sandbox/websites/max.example/traffic', { hits: 500 });
  await plugin.syncStatistics();
  plugin.stats.setLimits('website', 'prot.example', { websiteHits: 1000 });
  plugin.stats.setLimits('account', 'sam', { accountHits: 1100 });
  plugin.stats.setLimits('account', 'max', { accountHits: 400 });
  for (const [domain, fields] of Object.entries(SAM)) leave(plugin, domain, fields);
}

const DATA = [...Object.keys(SAM), 'nia.example', 'max.example', PROVIDER_REASON];

const PAGES: PageVisit[] = [
  { name: 'My domains, every state', as: 'customer', account: 'sam', path: '/panel', status: 200 },
  { name: 'My domains, no limit', as: 'customer', account: 'nia', path: '/panel', status: 200 },
  { name: 'My domains, account limit reached', as: 'customer', account: 'max', path: '/panel', status: 200 },
  { name: 'pause confirmation', as: 'customer', account: 'sam', path: '/panel/domains/prot.example/pause?return_to=list', status: 200 },
  ...['protected', 'paused', 'resumed', 'retried', 'saved', 'unchanged'].map((done) => ({
    name: `My domains after ${done}`,
    as: 'customer' as const,
    account: 'sam',
    path: `/panel?done=${done}`,
    status: 200,
  })),
  { name: 'a domain not in the account', as: 'customer', account: 'sam', path: '/panel/domains/nia.example/pause', status: 404 },
  {
    name: 'resume refused (paused by the host)',
    as: 'customer',
    account: 'sam',
    path: '/panel',
    post: '/panel/domains/host.example/resume',
    fields: { return_to: 'list' },
    status: 409,
  },
];

describe('the customer pages in each language', () => {
  it('shows My domains with every state, the pause confirmation and the messages after an action in English, German and Spanish', async () => {
    await withPlugin(async (plugin, sb) => {
      await seed(plugin, sb);
      await expectTranslated(plugin, PAGES, DATA);

      // The words themselves, in German: each state's badge, the limit sentences, the forecast cell.
      const list = textOf((await openInLocale(plugin, PAGES[0] as PageVisit, 'de')).body);
      for (const words of [
        'Meine Domains',
        'Geschützt',
        'Beobachtung',
        'Von Ihnen pausiert',
        'Von Ihrem Hoster pausiert',
        'Pausiert: Zugriffslimit erreicht',
        'Warten auf DNS',
        'Wird eingerichtet',
        'Schutz nicht möglich',
        `Der Schutzdienst konnte refused.example nicht schützen: ${PROVIDER_REASON}`,
        'Fast am Limit: Der Schutz wird bei 1.000 Zugriffen pausiert.',
        '900 von 1.100 Zugriffen in diesem Zeitraum',
      ]) {
        expect(list).toContain(words);
      }
      const reached = textOf((await openInLocale(plugin, PAGES[2] as PageVisit, 'es')).body);
      expect(reached).toContain('Se ha alcanzado el límite de su cuenta');
      expect(reached).toContain('alcanzado');
      const none = textOf((await openInLocale(plugin, PAGES[1] as PageVisit, 'de')).body);
      expect(none).toContain('1.200 Zugriffe in diesem Zeitraum (kein Limit)');
    });
  }, 120_000);

  it("shows the hit limit's pause with the host's upgrade page, and monitoring first, on the domain page in German and Spanish", async () => {
    await withPlugin(
      async (plugin, sb) => {
        await seed(plugin, sb);
        const domainPage = async (domain: string, locale: string) =>
          textOf(
            (
              await openInLocale(
                plugin,
                { name: domain, as: 'customer', account: 'sam', path: `/panel/domains/${domain}`, status: 200 },
                locale,
              )
            ).body,
          );
        const de = await domainPage('limit.example', 'de');
        expect(de).toContain('Der Schutz wird am');
        expect(de).toContain('Limit erhöhen');
        expect(de).not.toContain('Raise your limit');
        expect(de).not.toContain('to resume protection sooner');
        const es = await domainPage('limit.example', 'es');
        expect(es).toContain('Aumentar su límite');
        expect(es).not.toContain('when the next period starts');
        const watching = await domainPage('watch.example', 'de');
        expect(watching).toContain('Zuerst beobachten');
        expect(watching).toContain('Jetzt schützen');
        expect(watching).not.toContain('We watch your traffic');
      },
      { env: { WPP_UPGRADE_URL: 'https://host.example/upgrade?account={account}&site={domain}' } },
    );
  }, 60_000);

  it('tells the customer in their language to contact their host when no upgrade page is set', async () => {
    await withPlugin(async (plugin, sb) => {
      await seed(plugin, sb);
      const page = await openInLocale(
        plugin,
        { name: 'limit', as: 'customer', account: 'sam', path: '/panel/domains/limit.example', status: 200 },
        'de',
      );
      const text = textOf(page.body);
      expect(text).toContain('Wenden Sie sich an Ihren Hoster, um den Schutz früher fortzusetzen.');
      expect(text).not.toContain('contact your host');
    });
  }, 60_000);
});
