/**
 * Protection per hosting package on Plesk (src/panel/plesk-package.ts): the service-plan
 * permission wpp_web_protection as `plesk db` prints it (reconstructed output:
 * test/fixtures/panels/README.md), each account's package from its subscriptions' plans, and
 * what `wpp import plesk` makes of a listing that says so.
 */
import { describe, expect, it } from 'vitest';
import { compareListing, eventsToApply, type KnownState } from '../../src/core/import-diff.js';
import { parseListing } from '../../src/core/panel-listing.js';
import { parseDomainInfo, pleskListing } from '../../src/panel/listings/plesk.js';
import {
  accountPackages,
  parsePleskPlans,
  parsePleskSubscriptionPlans,
  permissionValue,
  PLESK_PLANS_QUERY,
  PLESK_SUBSCRIPTIONS_QUERY,
} from '../../src/panel/plesk-package.js';
import { readListingFixture } from '../helpers/panel-listings.js';

describe('Plesk: the service-plan permission wpp_web_protection', () => {
  it("reads 'true' and 'false' as Plesk stores plan permissions, and a plan without a stored value as the permission's default, on", () => {
    expect([
      permissionValue('true'),
      permissionValue('false'),
      permissionValue('FALSE\r'),
      permissionValue('NULL'),
      permissionValue(undefined),
    ]).toEqual([true, false, false, true, true]);
    expect(parsePleskPlans(readListingFixture('plesk/db-plans.txt'))).toEqual([
      { name: 'Default Domain', protection: true },
      { name: 'Basic', protection: false },
      { name: 'Legacy', protection: true },
    ]);
  });

  it('asks for the permission under the name Plesk stores it, of service plans only (not add-on plans)', () => {
    for (const query of [PLESK_PLANS_QUERY, PLESK_SUBSCRIPTIONS_QUERY]) {
      expect(query).toContain("td.element = 'wpp_web_protection'");
      expect(query).toContain("t.type = 'domain'");
    }
  });

  it("gives each account its plan, included when any of its subscriptions' plans includes it", () => {
    const packages = accountPackages(parsePleskSubscriptionPlans(readListingFixture('plesk/db-subscriptions.txt')));
    expect(Object.fromEntries(packages)).toEqual({
      bob: { plan: 'Default Domain', protection: true },
      carol: { plan: 'Basic', protection: false },
      admin: { plan: 'Legacy', protection: true },
    });
    // Without the plan that includes it, bob's only plan leaves him out.
    const onlyBasic = parsePleskSubscriptionPlans('Bob\tBOB.example\tBasic\tfalse\n');
    expect(Object.fromEntries(accountPackages(onlyBasic))).toEqual({ bob: { plan: 'Basic', protection: false } });
  });
});

describe('wpp import plesk: packages', () => {
  const infos = ['bob.example', 'shop.example', 'blog.bob.example', 'carol.example'].map((d) =>
    parseDomainInfo(d, readListingFixture(`plesk/domain-info/${d}.txt`)),
  );
  const listing = parseListing(
    pleskListing('bob\ncarol\n', infos, undefined, {
      plans: parsePleskPlans(readListingFixture('plesk/db-plans.txt')),
      accounts: accountPackages(parsePleskSubscriptionPlans(readListingFixture('plesk/db-subscriptions.txt'))),
    }),
    'plesk',
  );

  it("creates carol without protection and leaves her domain out; gives bob's known account its plan's protection back", () => {
    const known: KnownState = {
      accounts: [{ account: 'bob', state: 'active', providerUserId: 'bob', protectionIncluded: false }],
      websites: [
        { domain: 'bob.example', account: 'bob', state: 'active', subdomains: ['blog'], providerStatus: 'online' },
        { domain: 'shop.example', account: 'bob', state: 'active', subdomains: [], providerStatus: 'online' },
      ],
      queued: [],
    };
    const comparison = compareListing(listing, known, null);
    const events = eventsToApply(comparison, { prune: false });
    expect(events).toContainEqual({ type: 'account.created', account: 'carol', email: undefined, plan: 'Basic', protection: false });
    expect(events).toContainEqual({ type: 'plan.changed', account: 'bob', plan: 'Default Domain', protection: true });
    expect(events.filter((e) => e.type === 'domain.added' && e.account === 'carol')).toEqual([]);
    expect(listing.packages?.map((p) => [p.name, p.protection])).toEqual([
      ['Default Domain', true],
      ['Basic', false],
      ['Legacy', true],
    ]);
  });
});
