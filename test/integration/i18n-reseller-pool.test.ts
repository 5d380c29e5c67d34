/**
 * The reseller pools in each language (issue 22): the Settings page with a pool set and its
 * usage, the pool's form sent back with problems and saved, and the pool's usage on the
 * admin's accounts and website pages, each opened in English, German and Spanish.
 *
 * How "untranslated" is found: test/helpers/i18n-check.ts.
 */
import { describe, expect, it } from 'vitest';
import { expectTranslated, type PageVisit } from '../helpers/i18n-check.js';
import { createPageClient } from '../helpers/page-client.js';
import { admin, launchUrl } from '../helpers/pages.js';
import { withPlugin } from '../helpers/plugin.js';

const PAGES: PageVisit[] = [
  { name: 'settings with a reseller pool', as: 'admin', path: '/admin/settings', status: 200 },
  { name: 'settings, reseller pool saved', as: 'admin', path: '/admin/settings?saved=reseller-pool', status: 200 },
  {
    name: 'settings, reseller pool with problems',
    as: 'admin',
    path: '/admin/settings',
    post: '/admin/settings/reseller-pool',
    fields: { subject: 'r1', 'pool-hits': 'many', 'warning-percent': '300' },
    status: 400,
  },
  {
    name: 'settings, reseller pool for nobody known',
    as: 'admin',
    path: '/admin/settings',
    post: '/admin/settings/reseller-pool',
    fields: { subject: 'nobody-known', 'pool-hits': '5' },
    status: 400,
  },
  {
    name: 'settings, reseller pool with nothing to change',
    as: 'admin',
    path: '/admin/settings',
    post: '/admin/settings/reseller-pool',
    fields: { subject: 'r1' },
    status: 400,
  },
  { name: 'accounts with their reseller pools', as: 'admin', path: '/admin/accounts', status: 200 },
  { name: 'a website of a reseller with a pool', as: 'admin', path: '/admin/websites/a1.example', status: 200 },
];

/** Real data the pages show: names, domains, the change history's subjects and values. */
const DATA = [
  'alice-admin',
  'nobody-known',
  'a1.example',
  'b1.example',
  'alice',
  'bob',
  'r1',
  'r2',
  'limits:reseller:r1',
  'accountHits:',
  'none',
];

describe('reseller pools in each language', () => {
  it('shows the pools, their form with problems and their usage on the accounts and website pages', async () => {
    await withPlugin(async (plugin) => {
      await plugin.postEvents([
        { type: 'domain.added', account: 'alice', domain: 'a1.example' },
        { type: 'domain.added', account: 'bob', domain: 'b1.example' },
      ]);
      await plugin.idle();
      plugin.accounts.setAccountReseller('alice', 'r1');
      plugin.accounts.setAccountReseller('bob', 'r2');
      const client = createPageClient(plugin.url);
      expect((await client.get(launchUrl(plugin, admin('alice-admin')))).status).toBe(303);
      await client.get('/admin/settings');
      expect((await client.post('/admin/settings/reseller-pool', { subject: 'r1', 'pool-hits': '50000', 'anchor-day': '5' })).status).toBe(
        303,
      );
      await plugin.enforceLimits();
      await expectTranslated(
        plugin,
        PAGES,
        [...DATA].sort((a, b) => b.length - a.length),
      );
    });
  }, 120_000);
});
