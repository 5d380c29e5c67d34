/**
 * The reseller's pages: a reseller signs in from the panel (a launch token of the reseller role)
 * and sees the accounts the panel says are theirs, and nothing of another reseller's or of the
 * host's own customers.
 */
import { describe, expect, it } from 'vitest';
import { englishTranslate } from '../../src/cli/english.js';
import { applyLimitsChange, parseLimitsChange } from '../../src/core/limits-change.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { admin, launchUrl, reseller } from '../helpers/pages.js';
import { startTestPlugin, withPlugin } from '../helpers/plugin.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { removeTempDir } from '../helpers/temp.js';
import { DOMAINS, FLEET_ENV, othersIn, seedFleet, signInReseller } from './reseller-fleet.js';

/** The website's requested status at the provider, as the partner sees it. */
const atProvider = async (sandbox: { control: <T>(method: string, path: string) => Promise<T> }, domain: string) =>
  (await sandbox.control<{ requested_status: string }>('GET', `/v1.0/website?domain=${domain}`)).requested_status;

const account = (name: string, owner: string | null) => ({
  account: name,
  email: null,
  plan: null,
  providerUserId: `${name}@panel.example`,
  providerApiKey: null,
  state: 'active' as const,
  reseller: owner,
});

describe('the reseller pages', () => {
  it("sign a reseller in to /reseller, listing their own customers and no one else's", async () => {
    const sandbox = await startTestSandbox();
    const plugin = await startTestPlugin(sandbox);
    try {
      plugin.accounts.saveAccount(account('alice', 'res1'));
      plugin.accounts.saveAccount(account('bob', 'res1'));
      plugin.accounts.saveAccount(account('carol', 'res2'));
      plugin.accounts.saveAccount(account('dave', null));
      const client = createPageClient(plugin.url);
      const launched = await client.get(launchUrl({ url: plugin.url, dataDir: plugin.dataDir }, reseller('res1')));
      expect(launched.status).toBe(303);
      expect(launched.headers.get('location')).toBe('/reseller');
      const page = await client.get('/reseller');
      expect(page.status).toBe(200);
      const text = textOf(page.body);
      expect(text).toContain('Your customers');
      expect(text).toContain('alice');
      expect(text).toContain('bob');
      expect(text).not.toContain('carol');
      expect(text).not.toContain('dave');
      // Their customers' hits against the pool the host sets: none yet, then one of 5,000.
      expect(text).toContain('0 hits, no pool set');
      const pool = parseLimitsChange({ scope: 'reseller', subject: 'res1', 'pool-hits': '5000' }, () => true, englishTranslate());
      if (!pool?.ok) throw new Error('the pool was refused');
      applyLimitsChange({ stats: plugin.stats, audit: plugin.audit }, pool.change, 'admin:root');
      expect(textOf((await client.get('/reseller')).body)).toContain('0 of 5,000 hits');
      // The reseller's cookie opens neither the admin pages nor a customer's.
      expect((await client.get('/admin')).status).toBe(401);
      expect((await client.get('/panel')).status).toBe(401);
    } finally {
      await plugin.close();
      await sandbox.close();
      removeTempDir(plugin.dataDir);
      removeTempDir(sandbox.dataDir);
    }
  });
});

describe("the reseller pages run the admin pages for the reseller's own customers", () => {
  it("list, filter and export their customers' websites, accounts, enforcement log and limits, and no one else's", async () => {
    await withPlugin(
      async (plugin) => {
        await seedFleet(plugin);
        const client = await signInReseller(plugin);
        const websites = await client.get('/reseller/websites');
        expect(websites.status).toBe(200);
        expect(textOf(websites.body)).toContain('alice.example');
        expect(textOf(websites.body)).toContain('alice2.example');
        // Links stay in the reseller's area.
        expect(websites.body).toContain('href="/reseller/websites/alice.example"');
        expect(websites.body).not.toContain('/admin/');
        // A search and a filter: as on the admin page, within their customers.
        const found = textOf((await client.get('/reseller/websites?q=alice2')).body);
        expect(found).toContain('alice2.example');
        expect(found).not.toContain('alice.example ');
        expect(textOf((await client.get('/reseller/websites?q=example&match=contains')).body)).toContain('alice2.example');
        const website = await client.get('/reseller/websites/alice.example');
        expect(website.status).toBe(200);
        expect(website.body).toContain('action="/reseller/websites/alice.example/reprovision"');
        const accounts = textOf((await client.get('/reseller/accounts')).body);
        expect(accounts).toContain('alice');
        const log = await client.get('/reseller/runs');
        expect(log.status).toBe(200);
        expect(textOf(log.body)).toContain('alice.example');
        // The fleet's sync runs are the host's: the reseller's log page shows only their customers' actions.
        expect(textOf(log.body)).not.toContain('Runs');
        const csv = await client.get('/reseller/enforcement.csv');
        expect(csv.status).toBe(200);
        expect(csv.body.trim().split('\n')).toHaveLength(2);
        expect(csv.body).toContain('alice.example');
        const limits = await client.get('/reseller/limits');
        expect(limits.status).toBe(200);
        expect(textOf(limits.body)).toContain('alice');
        expect(limits.body).toContain('action="/reseller/limits"');
        for (const page of [websites, website, log, csv, limits]) expect(othersIn(page.body)).toEqual([]);
        expect(othersIn(accounts)).toEqual([]);
      },
      { env: FLEET_ENV },
    );
  }, 30_000);

  it('pauses, resumes and re-provisions their customers’ websites, recorded with the reseller’s name', async () => {
    await withPlugin(
      async (plugin, sandbox) => {
        await seedFleet(plugin);
        await sandbox.control('POST', '/_sandbox/websites/alice.example/dns-verified');
        const client = await signInReseller(plugin);
        const paused = await client.post('/reseller/websites/alice.example/pause');
        expect(paused.status).toBe(303);
        expect(paused.headers.get('location')).toBe('/reseller/websites/alice.example?done=paused');
        // The reseller's own pause, told apart from the host's: theirs to end, and the host's too.
        expect(plugin.accounts.getWebsite('alice.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'reseller' });
        expect(await atProvider(sandbox, 'alice.example')).toBe('paused');
        expect((await client.get('/reseller/websites/alice.example')).body).toContain('action="/reseller/websites/alice.example/resume"');
        expect((await client.post('/reseller/websites/alice.example/resume')).status).toBe(303);
        expect(plugin.accounts.getWebsite('alice.example')?.desiredStatus).toBe('online');
        expect(await atProvider(sandbox, 'alice.example')).toBe('online');
        const again = await client.post('/reseller/websites/alice.example/reprovision');
        expect(again.status).toBe(303);
        expect(again.headers.get('location')).toMatch(/^\/reseller\/websites\/alice\.example\?done=reprovisioned/);
      },
      { env: FLEET_ENV },
    );
  }, 30_000);

  it("never ends the host's pauses of their customers' websites: the admin's, the hit limit's", async () => {
    await withPlugin(
      async (plugin, sandbox) => {
        await seedFleet(plugin);
        await sandbox.control('POST', '/_sandbox/websites/alice.example/dns-verified');
        const host = createPageClient(plugin.url);
        expect((await host.get(launchUrl(plugin, admin('root')))).status).toBe(303);
        await host.get('/admin/websites/alice.example');
        expect((await host.post('/admin/websites/alice.example/pause')).status).toBe(303);
        expect(plugin.accounts.getWebsite('alice.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'admin' });
        const client = await signInReseller(plugin);
        // The page offers no Resume, and the form sent anyway is refused in words, changing nothing here or at the provider.
        const page = await client.get('/reseller/websites/alice.example');
        expect(page.body).not.toContain('action="/reseller/websites/alice.example/resume"');
        const refused = await client.post('/reseller/websites/alice.example/resume');
        expect(refused.status).toBe(403);
        expect(textOf(refused.body)).toContain('your host paused it: only your host can resume it. Nothing was changed.');
        expect(plugin.accounts.getWebsite('alice.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'admin' });
        expect(await atProvider(sandbox, 'alice.example')).toBe('paused');
        // A pause of the hit limit (the host's limits or the reseller's pool): resuming it would override the host's limits.
        plugin.stats.setLimits('website', 'alice2.example', { websiteHits: 10 });
        await sandbox.control('POST', '/_sandbox/websites/alice2.example/dns-verified');
        await plugin.syncStatistics();
        await sandbox.control('POST', '/_sandbox/websites/alice2.example/traffic', { hits: 50 });
        await plugin.syncStatistics();
        await plugin.enforceLimits();
        expect(plugin.accounts.getWebsite('alice2.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'enforcement' });
        expect((await client.get('/reseller/websites/alice2.example')).body).not.toContain('/resume"');
        const limited = await client.post('/reseller/websites/alice2.example/resume');
        expect(limited.status).toBe(403);
        expect(textOf(limited.body)).toContain('the hit limit paused it');
        expect(plugin.accounts.getWebsite('alice2.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'enforcement' });
        expect(await atProvider(sandbox, 'alice2.example')).toBe('paused');
        expect(plugin.stats.recentActions(100).filter((action) => action.action === 'admin_resume')).toEqual([]);
        // The host may end either.
        expect((await host.post('/admin/websites/alice.example/resume')).status).toBe(303);
        expect(await atProvider(sandbox, 'alice.example')).toBe('online');
      },
      { env: { WPP_AUTO_PROTECT: 'true' } },
    );
  }, 30_000);

  it("bulk protects their customers' unprotected domains only, with monitoring days, and sets their customers' limits only", async () => {
    await withPlugin(
      async (plugin) => {
        await seedFleet(plugin);
        const client = await signInReseller(plugin);
        const preview = await client.get('/reseller/bulk-protect');
        expect(textOf(preview.body)).toContain('alice.example');
        expect(othersIn(preview.body)).toEqual([]);
        expect(preview.body).toContain('data-testid="setup-count">2<');
        const run = await client.post('/reseller/bulk-protect', { monitor_days: '3' });
        expect(run.status).toBe(303);
        expect(run.headers.get('location')).toBe('/reseller/bulk-protect?protecting=2&retried=0');
        await plugin.idle();
        // Theirs in monitoring (paused by nobody at the provider, for 3 days), the others' still waiting in setup.
        for (const domain of DOMAINS.alice)
          expect(plugin.accounts.getWebsite(domain)).toMatchObject({ desiredStatus: 'paused', pausedBy: null });
        for (const domain of [...DOMAINS.bob, ...DOMAINS.carol]) expect(plugin.accounts.getWebsite(domain)?.desiredStatus).toBe('setup');
        expect(plugin.audit.listChanges({ limit: 10 }).find((change) => change.what === 'bulk_protect')?.actor).toBe('reseller:res1');

        const saved = await client.post('/reseller/limits', { scope: 'website', subject: 'alice2.example', 'website-hits': '1234' });
        expect(saved.status).toBe(303);
        expect(plugin.stats.limitLayer('website', 'alice2.example')).toMatchObject({ websiteHits: 1234 });
        expect(plugin.audit.listChanges({ limit: 10 }).find((change) => change.what === 'limits:website:alice2.example')?.actor).toBe(
          'reseller:res1',
        );
        // Never the host's: global and plan limits are refused, nothing stored.
        for (const scope of ['global', 'plan']) {
          const refused = await client.post('/reseller/limits', { scope, subject: scope === 'plan' ? 'default' : '', 'website-hits': '1' });
          expect(refused.status).toBe(400);
          expect(textOf(refused.body)).toContain('Choose Account or Website');
        }
        expect(plugin.stats.limitLayer('global', '')).toBeNull();
        // Nor exempt: an exempt customer would never be paused, by the host's limits or by the reseller's pool.
        const aliceBefore = plugin.stats.limitLayer('account', 'alice');
        const exempt = await client.post('/reseller/limits', { scope: 'account', subject: 'alice', exempt: 'true' });
        expect(exempt.status).toBe(400);
        expect(textOf(exempt.body)).toContain('Only the host can exempt');
        expect(plugin.stats.limitLayer('account', 'alice')).toEqual(aliceBefore);
        expect(aliceBefore?.exempt ?? null).toBeNull();
        expect((await client.get('/reseller/limits')).body).not.toContain('name="exempt"');
      },
      { env: FLEET_ENV },
    );
  }, 30_000);
});
