/**
 * The admin's forms in each language (issue 21, in the user's language): Settings (and each of
 * its forms sent back with problems), bulk protect (its preview with websites to protect and
 * failed set-ups, and the result of a run), the panel comparison (without and with one), and
 * the demo panel (its steps before and after an account, a domain and traffic, and its forms
 * sent back with problems). Each page is opened in English, German and Spanish.
 *
 * How "untranslated" is found: test/helpers/i18n-check.ts.
 */
import { describe, expect, it } from 'vitest';
import { compareListing, DIFFERENCE_KINDS } from '../../src/core/import-diff.js';
import { panelListingSchema } from '../../src/core/panel-listing.js';
import { expectTranslated, type PageVisit } from '../helpers/i18n-check.js';
import { createPageClient } from '../helpers/page-client.js';
import { admin, launchUrl, type LaunchTarget } from '../helpers/pages.js';
import { withDemoPlugin, withPlugin } from '../helpers/plugin.js';
import { waitFor } from '../helpers/wait.js';

const SETTINGS: PageVisit[] = [
  { name: 'settings', as: 'admin', path: '/admin/settings', status: 200 },
  { name: 'settings, limits saved', as: 'admin', path: '/admin/settings?saved=limits', status: 200 },
  { name: 'settings, plan saved', as: 'admin', path: '/admin/settings?saved=plan', status: 200 },
  {
    name: 'settings, limits with problems',
    as: 'admin',
    path: '/admin/settings',
    post: '/admin/settings/limits',
    fields: { scope: 'account', subject: 'nobody-known', 'website-hits': 'many', 'warning-percent': '300', period: 'yearly' },
    status: 400,
  },
  {
    name: 'settings, limits without a scope',
    as: 'admin',
    path: '/admin/settings',
    post: '/admin/settings/limits',
    fields: {},
    status: 400,
  },
  {
    name: 'settings, global limits with what does not apply',
    as: 'admin',
    path: '/admin/settings',
    post: '/admin/settings/limits',
    fields: { scope: 'global', subject: 'x', 'allow-unknown': 'on' },
    status: 400,
  },
  {
    name: 'settings, plan with problems',
    as: 'admin',
    path: '/admin/settings',
    post: '/admin/settings/plans',
    fields: { name: '', settings: '{"rules":', subdomains: '', monitorDays: '200' },
    status: 400,
  },
  {
    name: 'settings, plan with nothing to change',
    as: 'admin',
    path: '/admin/settings',
    post: '/admin/settings/plans',
    fields: { name: 'gold' },
    status: 400,
  },
  {
    name: 'settings, notification URL empty',
    as: 'admin',
    path: '/admin/settings',
    post: '/admin/settings/notify-url',
    fields: { action: 'set', url: '' },
    status: 400,
  },
  {
    name: 'settings, notification URL not a URL',
    as: 'admin',
    path: '/admin/settings',
    post: '/admin/settings/notify-url',
    fields: { action: 'set', url: 'not a url' },
    status: 400,
  },
];

const BULK: PageVisit[] = [
  { name: 'bulk protect, preview', as: 'admin', path: '/admin/bulk-protect', status: 200 },
  { name: 'bulk protect, queued', as: 'admin', path: '/admin/bulk-protect?protecting=3&retried=1', status: 200 },
  { name: 'bulk protect, one queued', as: 'admin', path: '/admin/bulk-protect?protecting=1&retried=0', status: 200 },
  {
    name: 'bulk protect, days refused',
    as: 'admin',
    path: '/admin/bulk-protect',
    post: '/admin/bulk-protect',
    fields: { monitor_days: '500' },
    status: 400,
  },
];

const IMPORT: PageVisit[] = [{ name: 'panel comparison', as: 'admin', path: '/admin/import', status: 200 }];

/** Data strings longest first: a name inside a longer one (carol in limits:account:carol) is removed after it. */
const longestFirst = (data: string[]) => [...data].sort((a, b) => b.length - a.length);

/** Real data the pages show: names, domains, the provider's reason as it gave it, commands and settings' JSON. */
const DATA = [
  'alice-admin',
  'nobody-known',
  'a1.example',
  'a2.example',
  'c1.example',
  'c2.example',
  'alice',
  'carol',
  'gold',
  'wpp limits',
  'wpp plans set',
  'wpp import',
  'not a url',
  // The plan every plan-less account is on, by its name; the keyword that clears a limit or the subdomains, typed as is.
  'default',
  'none',
  // The change history's subject of each change, as recorded (limits:<scope>:<subject>, plan:<name>).
  'limits:account:carol',
  'limits:global:',
  'plan:gold',
  'plan:silver',
  // A plan's recorded values by their keys, in the change history's lines.
  'subdomains:',
  // The JSON parser's own words, quoted after "is not JSON".
  'Unexpected end of JSON input',
  // The example of a plan's provider settings, in JSON.
  '{"rules":{"humans":"captcha"},"rulesets":{"wordpress":true}}',
];

/** Sends each form as the signed-in admin would (its CSRF token read from the page first); each must be stored (303). */
async function sendForms(
  target: LaunchTarget,
  forms: [page: string, action: string, fields: Record<string, string>][],
  name = 'alice-admin',
) {
  const client = createPageClient(target.url);
  expect((await client.get(launchUrl(target, admin(name)))).status).toBe(303);
  for (const [page, action, fields] of forms) {
    await client.get(page);
    expect((await client.post(action, fields)).status, action).toBe(303);
  }
}

describe('the admin forms in each language', () => {
  it('shows Settings, its forms sent back with problems, and its change history in each language', async () => {
    await withPlugin(async (plugin) => {
      await plugin.postEvents([{ type: 'account.created', account: 'carol' }]);
      await plugin.idle();
      // Changes made on the page itself, for the change history and the plans table.
      await sendForms(plugin, [
        ['/admin/settings', '/admin/settings/limits', { scope: 'account', subject: 'carol', 'domain-limit': '1', 'website-hits': '5000' }],
        [
          '/admin/settings',
          '/admin/settings/limits',
          { scope: 'global', 'website-hits': '100000', 'warning-percent': '80', exempt: 'false' },
        ],
        [
          '/admin/settings',
          '/admin/settings/plans',
          { name: 'gold', settings: '{"rules":{"humans":"captcha"}}', subdomains: 'www', monitorDays: '7' },
        ],
        ['/admin/settings', '/admin/settings/plans', { name: 'silver', subdomains: 'none', monitorDays: '1' }],
        ['/admin/settings', '/admin/settings/auto-protect', { action: 'off' }],
        ['/admin/settings', '/admin/settings/notify-url', { action: 'set', url: 'https://panel.example/wpp-notify' }],
      ]);
      await expectTranslated(plugin, SETTINGS, longestFirst(DATA));
    });
  }, 120_000);

  it('shows bulk protect with websites to protect and a failed set-up, and the panel comparison without and with one', async () => {
    await withPlugin(
      async (plugin) => {
        await expectTranslated(
          plugin,
          [...IMPORT, { name: 'bulk protect, nothing to do', as: 'admin', path: '/admin/bulk-protect', status: 200 }],
          longestFirst(DATA),
        );
        plugin.stats.setLimits('account', 'carol', { domainLimit: 1 });
        await plugin.postEvents([
          { type: 'account.created', account: 'alice' },
          { type: 'domain.added', account: 'alice', domain: 'a1.example' },
          { type: 'domain.added', account: 'alice', domain: 'a2.example' },
          { type: 'account.created', account: 'carol' },
          { type: 'domain.added', account: 'carol', domain: 'c1.example' },
          { type: 'domain.added', account: 'carol', domain: 'c2.example' },
        ]);
        await plugin.idle();
        const comparison = compareListing(
          panelListingSchema.parse({
            panel: 'cpanel',
            accounts: [
              {
                account: 'alice',
                suspended: true,
                // Owned by res1 in the plugin: a transfer, whose words are the page's too.
                reseller: 'res2',
                domains: [
                  { domain: 'a1.example', subdomains: ['shop'] },
                  { domain: 'new.example', subdomains: [] },
                ],
              },
              { account: 'dora', domains: [{ domain: 'c1.example', subdomains: [] }] },
            ],
          }),
          { accounts: [{ account: 'alice', state: 'active', providerUserId: 'alice-id', reseller: 'res1' }], websites: [], queued: [] },
          null,
        );
        expect(comparison.counts['reseller.differs']).toBe(1);
        for (const kind of DIFFERENCE_KINDS) comparison.counts[kind] ||= 1;
        plugin.imports.saveComparison({ at: Date.now() - 86_400_000, panel: 'cpanel', source: 'schedule', comparison, applied: null });
        plugin.imports.saveComparison({ at: Date.now(), panel: 'cpanel', source: 'cli', comparison, applied: 2 });
        // The provider's refusal as the failed set-up recorded it, and the differences' kinds (shown as codes beside their words).
        const provider = 'LIMIT_REACHED: Account carol may protect at most 1 domain: c2.example was not protected (domain limit reached)';
        await expectTranslated(
          plugin,
          [...BULK, ...IMPORT],
          longestFirst([...DATA, provider, ...DIFFERENCE_KINDS, 'new.example', 'dora', 'cpanel', 'shop', 'res1', 'res2']),
        );
      },
      { env: { WPP_AUTO_PROTECT: 'false' } },
    );
  }, 120_000);

  it('shows the demo panel before and after each step, and its forms sent back with problems, in each language', async () => {
    await withDemoPlugin(async (plugin) => {
      const demo = '/admin/demo';
      const visits: PageVisit[] = [
        { name: 'demo, empty', as: 'admin', path: demo, status: 200 },
        { name: 'demo, account sent', as: 'admin', path: `${demo}?done=account&account=pending-one`, status: 200 },
        { name: 'demo, sync busy', as: 'admin', path: `${demo}?done=sync-busy`, status: 200 },
        { name: 'demo, account refused', as: 'admin', path: demo, post: `${demo}/accounts`, fields: { account: 'no spaces' }, status: 400 },
        {
          name: 'demo, domain refused',
          as: 'admin',
          path: demo,
          post: `${demo}/domains`,
          fields: { account: '', domain: 'not a domain' },
          status: 400,
        },
        {
          name: 'demo, traffic refused',
          as: 'admin',
          path: demo,
          post: `${demo}/traffic`,
          fields: { domain: 'unknown.example', hits: 'lots', blocked: '5000000' },
          status: 400,
        },
        {
          name: 'demo, traffic over hits',
          as: 'admin',
          path: demo,
          post: `${demo}/traffic`,
          fields: { domain: 'unknown.example', hits: '0', blocked: '9' },
          status: 400,
        },
        {
          name: 'demo, DNS of an unknown domain',
          as: 'admin',
          path: demo,
          post: `${demo}/dns-verified`,
          fields: { domain: 'unknown.example' },
          status: 400,
        },
      ];
      const data = longestFirst([
        ...DATA,
        'demo-admin',
        'pending-one',
        'no spaces',
        'not a domain',
        'unknown.example',
        'lots',
        'blog.example',
        'shop.example',
        'zoe',
        'nowhere.invalid',
      ]);
      await expectTranslated(plugin, visits, data);

      const demoForms = (forms: [string, Record<string, string>][]) =>
        sendForms(
          plugin,
          forms.map(([action, fields]) => [demo, `${demo}/${action}`, fields]),
          'demo-admin',
        );
      await demoForms([
        ['accounts', { account: 'alice' }],
        ['domains', { account: 'alice', domain: 'blog.example' }],
        ['domains', { account: 'alice', domain: 'shop.example' }],
        ['domains', { account: 'alice', domain: 'nowhere.invalid' }],
        ['accounts', { account: 'zoe' }],
      ]);
      await waitFor(() => Boolean(plugin.accounts.getWebsite('blog.example')?.providerStatus), 10_000, 'blog.example at the sandbox');
      await waitFor(() => Boolean(plugin.accounts.getWebsite('nowhere.invalid')?.provisioningFailure), 10_000, 'the refusal');
      await demoForms([['dns-verified', { domain: 'blog.example' }]]);
      await waitFor(() => plugin.accounts.getWebsite('blog.example')?.providerStatus === 'online', 10_000, 'blog.example online');
      await expectTranslated(
        plugin,
        [
          { name: 'demo, accounts and domains', as: 'admin', path: `${demo}?done=domain&account=alice&domain=blog.example`, status: 200 },
          {
            name: 'demo, domain of another account',
            as: 'admin',
            path: demo,
            post: `${demo}/domains`,
            fields: { account: 'zoe', domain: 'blog.example' },
            status: 400,
          },
        ],
        data,
      );
      await demoForms([
        ['traffic', { domain: 'blog.example', hits: '500', blocked: '20' }],
        ['sync', {}],
      ]);
      await expectTranslated(
        plugin,
        [{ name: 'demo, counted', as: 'admin', path: `${demo}?done=traffic&domain=blog.example`, status: 200 }],
        data,
      );
      await sendForms(plugin, [
        ['/admin/settings', '/admin/settings/limits', { scope: 'website', subject: 'blog.example', 'website-hits': '10' }],
      ]);
      await demoForms([['sync', {}]]);
      await expectTranslated(plugin, [{ name: 'demo, counted and enforced', as: 'admin', path: `${demo}?done=sync`, status: 200 }], data);
    });
  }, 180_000);
});
