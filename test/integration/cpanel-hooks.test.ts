/**
 * cPanel's Standardized Hooks from their recorded payloads through the plugin into the real
 * sandbox: subdomains through the Whostmgr Domain hooks (an addon's hidden subdomain left
 * out), restores, renames, a new main domain, an addon domain made an account.
 *
 * The hook always runs the real whmapi1 (root '/'), as cPanel runs it as root; so the hooks
 * that read the account's domains run in-process through the function the hook calls
 * (readCpanelHook) with a tool runner rooted in a temporary folder holding a fake whmapi1 that
 * prints a recorded get_domain_info, and the events go through the hook's own deliverEvents.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deliverEvents } from '../../src/cli/hook.command.js';
import { createToolRunner } from '../../src/install/tools.js';
import { readCpanelHook, type CpanelLocal } from '../../src/panel/adapters/cpanel.js';
import { cpanelDomainsOf } from '../../src/panel/listings/cpanel.js';
import { WHMAPI1 } from '../../src/panel/listings/whmapi.js';
import type { AdapterResult } from '../../src/panel/adapters/result.js';
import { finishEvent } from '../../src/panel/events.js';
import { LISTINGS } from '../helpers/panel-listings.js';
import { fakeTool, toolCalls } from '../helpers/fake-tools.js';
import { withPlugin, type TestPlugin } from '../helpers/plugin.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { withTempDir } from '../helpers/temp.js';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/panels/cpanel/${name}.json`, import.meta.url), 'utf8'));

interface SandboxWebsite {
  domain: string;
  user_id: string;
  subdomain: string[];
  requested_status: string;
  settings: { rules: Record<string, string> };
}
const websites = (sb: TestSandbox) => sb.control<SandboxWebsite[]>('GET', '/v1.0/website');
const website = async (sb: TestSandbox, domain: string) => (await websites(sb)).find((w) => w.domain === domain);

/** A panel whose whmapi1 prints the recorded get_domain_info `listing` (none: whmapi1 is not there). */
const panelAt = (root: string, listing?: string) => {
  if (listing) fakeTool(root, WHMAPI1, { script: `cat '${LISTINGS}cpanel/${listing}'` });
  const tools = createToolRunner(root);
  return { domainsOf: (user: string) => cpanelDomainsOf(tools, user) };
};

/** The plugin's own record, as the hook process reads it. */
const localOf = (plugin: TestPlugin): CpanelLocal => ({
  websitesOf: (account) =>
    plugin.accounts
      .websitesOf(account)
      .filter((w) => w.state === 'active')
      .map((w) => w.domain),
});

async function deliver(plugin: TestPlugin, result: AdapterResult | Promise<AdapterResult>) {
  const answered = await result;
  if (!answered.ok) throw new Error(answered.error);
  await deliverEvents(plugin.config, answered.events);
  await plugin.idle();
  return answered;
}

/** Delivers recorded payloads one after the other, as cPanel runs the hooks, each settled before the next. */
async function hooks(plugin: TestPlugin, root: string, names: string[], listing?: string) {
  for (const name of names) await deliver(plugin, readCpanelHook(fixture(name), panelAt(root, listing), localOf(plugin)));
}

describe('cPanel subdomains through the Whostmgr Domain hooks', () => {
  it('adds and removes subdomains, and leaves out the subdomain an addon domain sits on', async () => {
    await withTempDir(async (root) => {
      await withPlugin(async (plugin, sb) => {
        await hooks(plugin, root, ['accounts-create', 'whostmgr-addsubdomain', 'whostmgr-addsubdomain-fullname']);
        expect((await website(sb, 'alice-shop.example'))?.subdomain).toEqual(['www', 'shop', 'blog']);

        // An addon domain: cPanel adds its subdomain first, then parks the addon on it.
        await hooks(plugin, root, ['whostmgr-addsubdomain-addon', 'domain-park-addon']);
        expect((await website(sb, 'alice-shop.example'))?.subdomain).toEqual(['www', 'shop', 'blog']);
        expect((await website(sb, 'buecher-alice.example'))?.user_id).toBe('alice@panel.example');

        await hooks(plugin, root, ['whostmgr-delsubdomain']);
        expect((await website(sb, 'alice-shop.example'))?.subdomain).toEqual(['www', 'blog']);
        // No whmapi1 was needed for any of them, and none failed.
        expect(toolCalls(root)).toEqual([]);
        expect(plugin.jobs.counts().dead).toBe(0);
      });
    });
  }, 60_000);

  it('answers payloads of the escalated Api2/UAPI hooks an earlier install registered with nothing to do', async () => {
    for (const name of ['api2-addsubdomain', 'uapi-addsubdomain', 'api2-delsubdomain', 'api2-addaddondomain', 'uapi-addaddondomain']) {
      const result = await readCpanelHook(
        fixture(name),
        { domainsOf: () => Promise.reject(new Error('not read')) },
        { websitesOf: () => [] },
      );
      expect(result, name).toEqual({ ok: true, events: [], note: expect.stringContaining('the Whostmgr Domain hooks see this change') });
    }
  });
});

describe('cPanel restores and transfers (PkgAcct::Restore)', () => {
  it('bring the account and every domain it has in, read from whmapi1 get_domain_info', async () => {
    await withTempDir(async (root) => {
      await withPlugin(async (plugin, sb) => {
        await hooks(plugin, root, ['pkgacct-restore'], 'get_domain_info-restore.json');
        expect(toolCalls(root)).toEqual([[WHMAPI1, '--output=json', 'get_domain_info']]);
        const bob = (await websites(sb)).filter((w) => w.user_id === 'bob@panel.example');
        expect(bob.map((w) => w.domain).sort()).toEqual(['bob-alias.example', 'bob.example', 'shop.example']);
        // blog under the main domain, dev under the addon; the addon's own subdomain (shop.bob.example) is not one to protect.
        expect((await website(sb, 'bob.example'))?.subdomain).toEqual(['www', 'blog']);
        expect((await website(sb, 'shop.example'))?.subdomain).toEqual(['www', 'dev']);
        // carol is another account of the server: not part of bob's restore.
        expect(await website(sb, 'carol.example')).toBeUndefined();
        expect(plugin.jobs.counts().dead).toBe(0);
      });
    });
  }, 60_000);

  it('still brings the main domain when whmapi1 cannot be read, and says to import', async () => {
    await withTempDir(async (root) => {
      const result = await readCpanelHook(fixture('pkgacct-restore'), panelAt(root), { websitesOf: () => [] });
      if (!result.ok) throw new Error(result.error);
      expect(result.events.map((e) => `${e.type} ${e.domain ?? e.account}`)).toEqual(['account.created bob', 'domain.added bob.example']);
      expect(result.note).toMatch(/could not read the account's domains from cPanel .*whmapi1 is not there.*wpp import cpanel/);
    });
  });
});

describe('cPanel account changes (Accounts::Modify)', () => {
  it('a rename: later events under the new name act on the same websites and the same provider user', async () => {
    await withTempDir(async (root) => {
      await withPlugin(async (plugin, sb) => {
        await hooks(plugin, root, ['accounts-create', 'whostmgr-addsubdomain']);
        const before = plugin.accounts.getAccount('alice');
        await hooks(plugin, root, ['accounts-modify-rename'], 'get_domain_info-modified.json');
        // The rename kept the main domain: modifyacct's `domain` is the one it had, nothing to remove.
        expect(plugin.accounts.getAccount('alice')).toBeNull();
        const alicia = plugin.accounts.getAccount('alicia');
        expect(alicia?.providerUserId).toBe(before?.providerUserId);
        expect(alicia?.providerApiKey).toBe(before?.providerApiKey);
        expect(plugin.accounts.websitesOf('alicia').map((w) => `${w.domain} ${w.state}`)).toEqual(['alice-shop.example active']);

        // cPanel now names the account alicia: a subdomain and a suspension reach the same website.
        const underNewName = (name: string) => {
          const payload = fixture(name) as { context: unknown; data: Record<string, unknown> };
          return { ...payload, data: { ...payload.data, user: 'alicia' } };
        };
        for (const payload of [underNewName('whostmgr-addsubdomain-fullname'), underNewName('accounts-suspendacct')]) {
          await deliver(plugin, readCpanelHook(payload, panelAt(root), localOf(plugin)));
        }
        const site = await website(sb, 'alice-shop.example');
        expect(site?.user_id).toBe('alice@panel.example');
        expect(site?.subdomain).toEqual(['www', 'shop', 'blog']);
        expect(site?.requested_status).toBe('paused');
        expect(plugin.accounts.getWebsite('alice-shop.example')).toMatchObject({ account: 'alicia', pausedBy: 'suspension' });
        expect(plugin.jobs.counts().dead).toBe(0);
      });
    });
  }, 60_000);

  it('an event queued under the old name before the rename reaches the renamed account; a later one under that name is a new account', async () => {
    await withTempDir(async (root) => {
      await withPlugin(async (plugin, sb) => {
        await hooks(plugin, root, ['accounts-create']);
        const renamedAt = new Date();
        const renamed = await readCpanelHook(fixture('accounts-modify-rename'), panelAt(root), localOf(plugin), renamedAt);
        // A subdomain cPanel added under the old name a minute before the rename, carried out only after it.
        const earlier = finishEvent(
          'cpanel',
          { type: 'subdomain.added', account: 'alice', domain: 'alice-shop.example', subdomain: 'late' },
          new Date(renamedAt.getTime() - 60_000),
        );
        if (!renamed.ok || !earlier.success) throw new Error('fixtures did not translate');
        await deliverEvents(plugin.config, renamed.events);
        await plugin.idle();
        await deliverEvents(plugin.config, [earlier.data]);
        await plugin.idle();
        expect((await website(sb, 'alice-shop.example'))?.subdomain).toEqual(['www', 'late']);

        // cPanel may give the freed name to a new customer: that account is not the renamed one.
        const reused = finishEvent('cpanel', { type: 'account.created', account: 'alice' }, new Date(renamedAt.getTime() + 60_000));
        if (!reused.success) throw reused.error;
        await deliverEvents(plugin.config, [reused.data]);
        await plugin.idle();
        // Its own provider user: alice@panel.example stays the renamed account's.
        expect(plugin.accounts.getAccount('alice')?.providerUserId).toBe('alice+r2@panel.example');
        expect(plugin.accounts.getAccount('alicia')?.providerUserId).toBe('alice@panel.example');
        expect(plugin.accounts.websitesOf('alice')).toEqual([]);
        expect(plugin.accounts.websitesOf('alicia').map((w) => w.domain)).toEqual(['alice-shop.example']);
        expect(plugin.jobs.counts().dead).toBe(0);
      });
    });
  }, 60_000);

  it('a new main domain is protected and the old one removed', async () => {
    await withTempDir(async (root) => {
      await withPlugin(async (plugin, sb) => {
        await hooks(plugin, root, ['accounts-create']);
        await hooks(plugin, root, ['accounts-modify-domain'], 'get_domain_info-modified.json');
        expect((await website(sb, 'alice-new.example'))?.user_id).toBe('alice@panel.example');
        expect((await website(sb, 'alice-new.example'))?.requested_status).toBe('online');
        expect((await website(sb, 'alice-shop.example'))?.requested_status).toBe('paused');
        expect(plugin.accounts.getWebsite('alice-shop.example')).toMatchObject({ state: 'removed', pausedBy: 'domain_removed' });
        expect(plugin.jobs.counts().dead).toBe(0);
      });
    });
  }, 60_000);
});

describe('cPanel Convert Addon Domain to Account (ConvertAddon::convert_addon)', () => {
  it('moves the website to the new account with its settings, at the same provider record', async () => {
    await withTempDir(async (root) => {
      await withPlugin(async (plugin, sb) => {
        await hooks(plugin, root, ['accounts-create', 'whostmgr-addsubdomain-addon', 'domain-park-addon']);
        // The customer's own rule on the addon's website, made at the provider.
        await plugin.provider.updateWebsite('buecher-alice.example', {
          settings: { rules: { humans: 'deny' } },
          subdomain: ['www', 'shop'],
        });
        await hooks(plugin, root, ['convertaddon-convert-addon']);

        const moved = await website(sb, 'buecher-alice.example');
        expect(moved?.user_id).toBe('shopper@panel.example');
        expect(moved?.settings.rules.humans).toBe('deny');
        expect(moved?.subdomain).toEqual(['www', 'shop']);
        expect(moved?.requested_status).toBe('online');
        expect(plugin.accounts.getWebsite('buecher-alice.example')).toMatchObject({ account: 'shopper', state: 'active' });
        expect(plugin.accounts.getAccount('shopper')?.providerUserId).toBe('shopper@panel.example');
        // alice keeps her main domain.
        expect((await website(sb, 'alice-shop.example'))?.user_id).toBe('alice@panel.example');
        expect(plugin.jobs.counts().dead).toBe(0);
      });
    });
  }, 60_000);
});

describe('a cPanel hook that may not write the database', () => {
  it('says it must run as root instead of posting the events it could not sign', async () => {
    await withPlugin(async (plugin) => {
      const result = await readCpanelHook(fixture('whostmgr-addsubdomain'), panelAt('/nonexistent'), localOf(plugin));
      if (!result.ok) throw new Error(result.error);
      const readOnly = () => {
        throw Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' });
      };
      const config = { ...plugin.config, hook: { ...plugin.config.hook, url: plugin.url } };
      await expect(deliverEvents(config, result.events, { open: readOnly, mayPost: false })).rejects.toThrow(
        /may not write the plugin's database: cPanel runs wpp's hooks as root/,
      );
      // Nothing reached the running plugin either.
      expect(plugin.jobs.list({}).filter((job) => job.kind === 'panel.event')).toEqual([]);
    });
  });
});
