/**
 * Protection per hosting package as each panel says it (recorded output and payloads:
 * test/fixtures/panels/README.md): cPanel's Feature Manager feature through WHM API 1, and the
 * events the hooks make of it; the event schema carries it only on account.created and
 * plan.changed, and events that do not say keep their ids.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareListing, eventsToApply, type KnownState } from '../../src/core/import-diff.js';
import { parseListing } from '../../src/core/panel-listing.js';
import { createToolRunner } from '../../src/install/tools.js';
import { readCpanelHook } from '../../src/panel/adapters/cpanel.js';
import { translateDirectAdminHook } from '../../src/panel/adapters/directadmin.js';
import { readDirectAdminListing } from '../../src/panel/listings/directadmin.js';
import { deriveEventId, finishEvent } from '../../src/panel/events.js';
import { cpanelListing } from '../../src/panel/listings/cpanel.js';
import {
  cpanelPackageProtection,
  listIncludesProtection,
  packageFeatureLists,
  readCpanelPackages,
} from '../../src/panel/listings/cpanel-features.js';
import { installDirectAdminFiles, installFakeWhmapi, readListingFixture } from '../helpers/panel-listings.js';
import { withTempDir } from '../helpers/temp.js';

const NOW = new Date('2026-11-26T12:00:00Z');
const hookFixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/panels/cpanel/${name}.json`, import.meta.url), 'utf8'));

describe('cPanel: the Feature Manager feature wpp_web_protection of each package', () => {
  it("reads each package's feature list from listpkgs, and the feature from the list (on unless set to 0)", () => {
    expect(packageFeatureLists(readListingFixture('cpanel/listpkgs.json'))).toEqual(
      new Map([
        ['Business', 'business_features'],
        ['default', 'default'],
        ['Starter', 'starter_features'],
      ]),
    );
    expect(listIncludesProtection(readListingFixture('cpanel/get_featurelist_data-default.json'), 'default')).toBe(true);
    expect(listIncludesProtection(readListingFixture('cpanel/get_featurelist_data-starter_features.json'), 'starter_features')).toBe(false);
    // A list that does not name the feature gives it (cPanel's default for an addon feature); the "disabled" list takes it from everyone.
    const unnamed = readListingFixture('cpanel/get_featurelist_data-default.json').replace('"wpp_web_protection"', '"other_feature"');
    expect(listIncludesProtection(unnamed, 'default')).toBe(true);
    const disabled = readListingFixture('cpanel/get_featurelist_data-default.json').replace(
      '{ "id": "wpp_web_protection", "is_disabled": 0',
      '{ "id": "wpp_web_protection", "is_disabled": 1',
    );
    expect(listIncludesProtection(disabled, 'default')).toBe(false);
    expect(() => listIncludesProtection('{"metadata":{"result":0,"reason":"Access denied"}}', 'default')).toThrow(
      'whmapi1 get_featurelist_data featurelist=default failed: Access denied',
    );
  });

  it('gives every listed account its package protection, and lists the packages, through the real tool runner', async () => {
    await withTempDir(async (root) => {
      const starter = readListingFixture('cpanel/listaccts.json').replace('"plan": "Business"', '"plan": "Starter"');
      installFakeWhmapi(root, { listaccts: starter, domainInfo: readListingFixture('cpanel/get_domain_info.json') });
      const tools = createToolRunner(root);
      const packages = await readCpanelPackages(tools);
      expect(packages).toEqual([
        { name: 'Business', protection: true },
        { name: 'default', protection: true },
        { name: 'Starter', protection: false },
      ]);
      const listing = parseListing(cpanelListing(starter, readListingFixture('cpanel/get_domain_info.json'), packages), 'cpanel');
      expect(listing.accounts.map((a) => [a.account, a.plan, a.protection])).toEqual([
        ['bob', 'Starter', false],
        ['carol', 'default', true],
        ['dave', 'default', true],
      ]);
      expect(listing.packages).toHaveLength(3);
      // Each feature list is read once, however many packages share it.
      const calls = readFileSync(`${root}/calls.log`, 'utf8').trim().split('\n');
      expect(calls.filter((line) => line.includes('get_featurelist_data'))).toHaveLength(3);
    });
  });

  it("answers a hook for one package from that package's feature list alone", async () => {
    await withTempDir(async (root) => {
      installFakeWhmapi(root, {
        listaccts: readListingFixture('cpanel/listaccts.json'),
        domainInfo: readListingFixture('cpanel/get_domain_info.json'),
      });
      const tools = createToolRunner(root);
      expect(await cpanelPackageProtection(tools, 'Starter')).toBe(false);
      expect(await cpanelPackageProtection(tools, 'Business')).toBe(true);
      expect(await cpanelPackageProtection(tools, 'Unknown')).toBeUndefined();
      const lists = readFileSync(`${root}/calls.log`, 'utf8')
        .trim()
        .split('\n')
        .filter((line) => line.includes('get_featurelist_data'));
      expect(lists).toEqual([
        expect.stringContaining('featurelist=starter_features'),
        expect.stringContaining('featurelist=business_features'),
      ]);
    });
  });

  it('adds the package protection to Accounts::Create and change_package, and leaves it out when cPanel cannot say', async () => {
    const panel = (answer: boolean | undefined | Error) => ({
      domainsOf: async () => [],
      packageProtection: async () => {
        if (answer instanceof Error) throw answer;
        return answer;
      },
    });
    const local = { websitesOf: () => [] };
    const created = await readCpanelHook(hookFixture('accounts-create'), panel(false), local, NOW);
    expect(created.ok && created.events.map((e) => [e.type, e.plan, e.protection])).toEqual([
      ['account.created', 'gold', false],
      ['domain.added', 'gold', undefined],
    ]);
    const moved = await readCpanelHook(hookFixture('accounts-change-package'), panel(true), local, NOW);
    expect(moved.ok && moved.events.map((e) => [e.type, e.plan, e.protection])).toEqual([['plan.changed', 'platinum', true]]);
    const unknown = await readCpanelHook(hookFixture('accounts-change-package'), panel(new Error('whmapi1 failed')), local, NOW);
    expect(unknown.ok && unknown.events[0]?.protection).toBeUndefined();
  });
});

describe('the event schema: protection', () => {
  it('belongs to account.created and plan.changed only', () => {
    expect(finishEvent('test', { type: 'plan.changed', account: 'alice', plan: 'gold', protection: false }, NOW).success).toBe(true);
    const wrong = finishEvent('test', { type: 'domain.added', account: 'alice', domain: 'a.example', protection: true }, NOW);
    expect(wrong.success).toBe(false);
    expect(wrong.error?.issues[0]?.message).toBe('protection belongs to account.created and plan.changed, not domain.added');
  });

  it("keeps the ids of events that do not say, and tells a package change's two answers apart", () => {
    const draft = { type: 'plan.changed' as const, account: 'alice', plan: 'gold' };
    // The id deriveEventId gave this event before protection existed (computed on main, ddf50c4).
    expect(deriveEventId('cpanel', draft, NOW)).toBe('cpanel:6d027d7fd0146de12768d389efe0fbf7');
    expect(deriveEventId('cpanel', { ...draft, protection: true }, NOW)).not.toBe(
      deriveEventId('cpanel', { ...draft, protection: false }, NOW),
    );
    expect(deriveEventId('cpanel', { ...draft, protection: true }, NOW)).not.toBe(deriveEventId('cpanel', draft, NOW));
  });
});

describe("DirectAdmin: the custom package item wpp_web_protection in each user's user.conf", () => {
  const hook = (name: string, extra: Record<string, string>) => {
    const { hook: which, env } = JSON.parse(
      readFileSync(new URL(`../fixtures/panels/directadmin/${name}.json`, import.meta.url), 'utf8'),
    ) as {
      hook: string;
      env: Record<string, string>;
    };
    return translateDirectAdminHook(which, { ...env, ...extra }, NOW);
  };

  it('carries ON and OFF on user_create_post and user_modify_post, and nothing when the item is not there', () => {
    const created = hook('user-create-post', { wpp_web_protection: 'OFF' });
    expect(created.ok && created.events.map((e) => [e.type, e.protection])).toEqual([
      ['account.created', false],
      ['domain.added', undefined],
    ]);
    const modified = hook('user-modify-post', { wpp_web_protection: 'ON' });
    expect(modified.ok && modified.events.map((e) => [e.type, e.protection])).toEqual([['plan.changed', true]]);
    const silent = hook('user-modify-post', {});
    expect(silent.ok && silent.events[0]?.protection).toBeUndefined();
  });

  it("takes DirectAdmin's own switch of the plugin per package first: a package the plugin is off for has no protection", () => {
    const off = (extra: Record<string, string>) => {
      const created = hook('user-create-post', extra);
      return created.ok ? created.events[0]?.protection : 'refused';
    };
    // plugins_deny names wpp: off, whatever the item says.
    expect(off({ plugins_deny: 'other:wpp', wpp_web_protection: 'ON' })).toBe(false);
    // An allow list decides alone: without wpp (even empty) off; with it, the item decides.
    expect(off({ plugins_allow: 'other' })).toBe(false);
    expect(off({ plugins_allow: '' })).toBe(false);
    expect(off({ plugins_allow: 'other:wpp', plugins_deny: 'wpp', wpp_web_protection: 'ON' })).toBe(true);
    expect(off({ plugins_allow: 'wpp' })).toBeUndefined();
    // Another plugin denied says nothing of wpp.
    expect(off({ plugins_deny: 'other', wpp_web_protection: 'OFF' })).toBe(false);
    expect(off({ plugins_deny: 'other' })).toBeUndefined();
    const modified = hook('user-modify-post', { plugins_deny: 'wpp' });
    expect(modified.ok && modified.events[0]).toMatchObject({ type: 'plan.changed', protection: false });
  });

  it('reads it from user.conf in the listing', async () => {
    await withTempDir(async (root) => {
      installDirectAdminFiles(root);
      const conf = join(root, '/usr/local/directadmin/data/users/bob/user.conf');
      writeFileSync(conf, `${readFileSync(conf, 'utf8')}wpp_web_protection=OFF\n`);
      // carol's package has the plugin switched off in DirectAdmin's own per-package list.
      const other = { name: 'carol', conf: join(root, '/usr/local/directadmin/data/users/carol/user.conf') };
      writeFileSync(other.conf, `${readFileSync(other.conf, 'utf8')}plugins_deny=wpp\n`);
      const listing = parseListing(await readDirectAdminListing(createToolRunner(root)), 'directadmin');
      expect(listing.accounts.find((a) => a.account === 'bob')?.protection).toBe(false);
      expect(listing.accounts.find((a) => a.account === other.name)?.protection).toBe(false);
      expect(listing.accounts.filter((a) => a.account !== 'bob' && a.account !== other.name).every((a) => a.protection === undefined)).toBe(
        true,
      );
    });
  });
});

describe('wpp import: package features', () => {
  const listed = parseListing(
    {
      panel: 'test',
      accounts: [
        { account: 'bob', plan: 'basic', protection: false, domains: [{ domain: 'bob.example', subdomains: ['blog'] }] },
        { account: 'carol', plan: 'pro', protection: true, domains: [{ domain: 'carol.example' }] },
        { account: 'dave', plan: 'pro', protection: true, domains: [] },
        { account: 'erin', plan: 'basic', protection: false, domains: [] },
      ],
    },
    'test',
  );
  const known: KnownState = {
    accounts: [
      { account: 'dave', state: 'active', providerUserId: 'dave', protectionIncluded: false },
      { account: 'erin', state: 'active', providerUserId: 'erin', protectionIncluded: null },
    ],
    websites: [],
    queued: [],
  };

  it("creates accounts with their package's protection, leaves the domains of a package without it out, and applies a package that differs", () => {
    const comparison = compareListing(listed, known, null);
    expect(eventsToApply(comparison, { prune: false })).toEqual([
      { type: 'account.created', account: 'bob', email: undefined, plan: 'basic', protection: false },
      { type: 'account.created', account: 'carol', email: undefined, plan: 'pro', protection: true },
      { type: 'domain.added', account: 'carol', domain: 'carol.example', plan: 'pro', ip: undefined },
      { type: 'plan.changed', account: 'dave', plan: 'pro', protection: true },
      // Unknown (null) reads as included: the panel now says it is not.
      { type: 'plan.changed', account: 'erin', plan: 'basic', protection: false },
    ]);
    expect(comparison.counts['package.differs']).toBe(2);
  });
});
