/**
 * The reseller's pages in each language (issue 22 on issue 21's catalogs): the overview, the
 * websites list (filtered), a website page and the message after a pause, the accounts, the
 * enforcement log, the limits (saved, and sent back with problems), and bulk protect (with
 * domains to protect, and after a run). Each page is opened in English, German and Spanish.
 *
 * How "untranslated" is found: test/helpers/i18n-check.ts.
 */
import { describe, it } from 'vitest';
import { expectTranslated, type PageVisit } from '../helpers/i18n-check.js';
import { withPlugin } from '../helpers/plugin.js';
import { FLEET_ENV, seedFleet } from './reseller-fleet.js';

const as = 'reseller' as const;
const VISITS: PageVisit[] = [
  { name: 'overview', as, path: '/reseller', status: 200 },
  { name: 'websites', as, path: '/reseller/websites', status: 200 },
  { name: 'websites, filtered', as, path: '/reseller/websites?state=setup&quota=near_or_over&q=alice', status: 200 },
  { name: 'website', as, path: '/reseller/websites/alice.example', status: 200 },
  { name: 'website, paused', as, path: '/reseller/websites/alice.example?done=paused', status: 200 },
  { name: 'website of someone else', as, path: '/reseller/websites/bob.example', status: 404 },
  { name: 'accounts', as, path: '/reseller/accounts', status: 200 },
  { name: 'enforcement log', as, path: '/reseller/runs', status: 200 },
  { name: 'limits', as, path: '/reseller/limits', status: 200 },
  { name: 'limits saved', as, path: '/reseller/limits?saved=limits', status: 200 },
  {
    name: 'limits with problems',
    as,
    path: '/reseller/limits',
    post: '/reseller/limits',
    fields: { scope: 'account', subject: 'bob', 'website-hits': 'many' },
    status: 400,
  },
  {
    name: 'limits of the host',
    as,
    path: '/reseller/limits',
    post: '/reseller/limits',
    fields: { scope: 'global', 'website-hits': '1' },
    status: 400,
  },
  { name: 'bulk protect', as, path: '/reseller/bulk-protect', status: 200 },
  { name: 'bulk protect, run', as, path: '/reseller/bulk-protect?protecting=2&retried=0', status: 200 },
];

/** Data, not messages: names, domains, the actors and reasons the log records, the keyword none, numbers' units. */
const DATA = [
  'alice2.example',
  'alice.example',
  'bob.example',
  'nobody-known',
  'reseller:res1',
  'enforcement',
  'alice',
  'res1',
  'bob',
  'none',
  'many',
];

describe('the reseller pages in every language', () => {
  it('shows every reseller page, its messages and its forms sent back in English, German and Spanish', async () => {
    await withPlugin(
      async (plugin) => {
        await seedFleet(plugin);
        await expectTranslated(plugin, VISITS, DATA);
      },
      { env: FLEET_ENV },
    );
  }, 120_000);
});
