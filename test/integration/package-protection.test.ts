/**
 * Protection per hosting package, as the host and the customer live it: the panel says with
 * account.created and plan.changed whether the account's package includes web protection
 * (cPanel's wpp_web_protection feature, a Plesk plan permission, ...). Without it the account's
 * domains are recorded but nothing is set up at the provider, and the customer's launch says why;
 * a package change that adds it protects them; one that removes it pauses them, then removes
 * them at the provider when the admin's grace period is over, unless it comes back before.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkPackages } from '../../src/doctor/packages-check.js';
import { expectTranslated } from '../helpers/i18n-check.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { admin, customer, launchUrl } from '../helpers/pages.js';
import { withPlugin } from '../helpers/plugin.js';
import type { TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

const DAY = 24 * 60 * 60_000;

/** The website as the sandbox holds it, or null when the provider has no such website. */
async function atProvider(sb: TestSandbox, domain: string): Promise<{ status: string } | null> {
  try {
    return await sb.control<{ status: string }>('GET', `/v1.0/website?domain=${domain}`);
  } catch (error) {
    if (/404/.test(String(error))) return null;
    throw error;
  }
}

describe('protection per hosting package', () => {
  it('records the domains of a package without protection but sets nothing up, and the launch says why', async () => {
    await withPlugin(async (plugin, sb) => {
      await plugin.postEvents([
        { type: 'account.created', account: 'bruno', plan: 'basic', protection: false },
        { type: 'domain.added', account: 'bruno', domain: 'bruno.example' },
        { type: 'account.created', account: 'alice', plan: 'pro', protection: true },
        { type: 'domain.added', account: 'alice', domain: 'alice.example' },
      ]);
      await plugin.idle();
      expect(plugin.jobs.counts().dead).toBe(0);
      expect(plugin.accounts.getWebsite('bruno.example')).toMatchObject({ state: 'active', pausedBy: 'package', provisionedAt: null });
      expect(await atProvider(sb, 'bruno.example')).toBeNull();
      expect(await atProvider(sb, 'alice.example')).not.toBeNull();

      const page = createPageClient(plugin.url);
      const landed = await page.get(launchUrl(plugin, customer('bruno')));
      expect(landed.status).toBe(303);
      const shown = await page.get('/panel');
      expect(shown.status).toBe(403);
      expect(textOf(shown.body)).toContain('Your hosting package does not include web protection');
      // alice's package includes it: her pages are as ever.
      const alicePage = createPageClient(plugin.url);
      await alicePage.get(launchUrl(plugin, customer('alice')));
      expect((await alicePage.get('/panel')).status).toBe(200);
      // The admin sees why bruno's domain is not protected.
      const adminPage = createPageClient(plugin.url);
      await adminPage.get(launchUrl(plugin, admin('dana')));
      const website = await adminPage.get('/admin/websites/bruno.example');
      expect(textOf(website.body)).toContain("The account's hosting package does not include web protection");
      // The websites list filters by it.
      const kept = textOf((await adminPage.get('/admin/websites?paused=package')).body);
      expect(kept).toContain('bruno.example');
      expect(kept).not.toContain('alice.example');
    });
  });

  it('protects the websites when a package change adds protection', async () => {
    await withPlugin(async (plugin, sb) => {
      await plugin.postEvents([
        { type: 'account.created', account: 'bruno', plan: 'basic', protection: false },
        { type: 'domain.added', account: 'bruno', domain: 'bruno.example' },
      ]);
      await plugin.idle();
      expect(await atProvider(sb, 'bruno.example')).toBeNull();

      await plugin.postEvents([{ type: 'plan.changed', account: 'bruno', plan: 'pro', protection: true }]);
      await plugin.idle();
      expect(plugin.jobs.list({ state: 'dead', limit: 10 }).map((job) => job.lastError)).toEqual([]);
      expect(plugin.accounts.getWebsite('bruno.example')).toMatchObject({ desiredStatus: 'online', pausedBy: null });
      expect(plugin.accounts.getWebsite('bruno.example')?.provisionedAt).not.toBeNull();
      expect(await atProvider(sb, 'bruno.example')).not.toBeNull();
    });
  });

  it('pauses when a package change removes protection, resumes when it comes back within the grace, removes after it', async () => {
    let clock = Date.now();
    await withPlugin(
      async (plugin, sb) => {
        await plugin.postEvents([
          { type: 'account.created', account: 'carla', plan: 'pro', protection: true },
          { type: 'domain.added', account: 'carla', domain: 'carla.example' },
          { type: 'domain.added', account: 'carla', domain: 'shop.carla.example' },
        ]);
        await plugin.idle();
        for (const domain of ['carla.example', 'shop.carla.example']) await sb.control('POST', `/_sandbox/websites/${domain}/dns-verified`);
        await waitFor(() => plugin.accounts.getWebsite('carla.example')?.providerStatus === 'online', 10_000, 'carla.example online');

        // Removed: paused at once, still at the provider.
        await plugin.postEvents([{ type: 'plan.changed', account: 'carla', plan: 'basic', protection: false }]);
        await plugin.idle();
        expect(plugin.accounts.getWebsite('carla.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'package' });
        expect((await atProvider(sb, 'carla.example'))?.status).toBe('paused');

        // Back within the grace (default 14 days): resumed, and the release job finds nothing to do when due.
        clock += 3 * DAY;
        await plugin.postEvents([{ type: 'plan.changed', account: 'carla', plan: 'pro', protection: true }]);
        await plugin.idle();
        expect(plugin.accounts.getWebsite('carla.example')).toMatchObject({ desiredStatus: 'online', pausedBy: null });
        expect((await atProvider(sb, 'carla.example'))?.status).toBe('online');
        clock += 15 * DAY;
        await plugin.idle();
        expect(await atProvider(sb, 'carla.example')).not.toBeNull();

        // Removed again and left so: after the grace, removed at the provider; the rows stay.
        await plugin.postEvents([{ type: 'plan.changed', account: 'carla', plan: 'basic', protection: false }]);
        await plugin.idle();
        clock += 13 * DAY;
        await plugin.idle();
        expect(await atProvider(sb, 'carla.example')).not.toBeNull();
        clock += 2 * DAY;
        await waitFor(async () => (await atProvider(sb, 'shop.carla.example')) === null, 10_000, 'the release after the grace');
        await plugin.idle();
        expect(await atProvider(sb, 'carla.example')).toBeNull();
        expect(plugin.accounts.getWebsite('carla.example')).toMatchObject({ state: 'active', pausedBy: 'package', provisionedAt: null });
        expect(plugin.jobs.counts().dead).toBe(0);

        // The package gets protection back later: set up again, as if just added.
        await plugin.postEvents([{ type: 'plan.changed', account: 'carla', plan: 'pro', protection: true }]);
        await plugin.idle();
        expect(await atProvider(sb, 'carla.example')).not.toBeNull();
        expect(plugin.accounts.getWebsite('carla.example')).toMatchObject({ desiredStatus: 'online', pausedBy: null });
      },
      { now: () => clock },
    );
  });

  it('leaves accounts without protection out of bulk protect', async () => {
    await withPlugin(
      async (plugin) => {
        await plugin.postEvents([
          { type: 'account.created', account: 'alice', plan: 'pro', protection: true },
          { type: 'domain.added', account: 'alice', domain: 'alice.example' },
          { type: 'account.created', account: 'bruno', plan: 'basic', protection: false },
          { type: 'domain.added', account: 'bruno', domain: 'bruno.example' },
        ]);
        await plugin.idle();
        const client = createPageClient(plugin.url);
        await client.get(launchUrl(plugin, admin('dana')));
        const preview = textOf((await client.get('/admin/bulk-protect')).body);
        expect(preview).toContain('alice.example');
        expect(preview).not.toContain('bruno.example');
        expect((await client.post('/admin/bulk-protect')).headers.get('location')).toBe('/admin/bulk-protect?protecting=1&retried=0');
        await plugin.idle();
        expect(plugin.accounts.getWebsite('bruno.example')).toMatchObject({ pausedBy: 'package', provisionedAt: null });
      },
      { env: { WPP_AUTO_PROTECT: 'false' } },
    );
  });

  it('lists the packages the panel named on the Settings page, and keeps the grace period an admin sets', async () => {
    await withPlugin(async (plugin) => {
      await plugin.postEvents([
        { type: 'account.created', account: 'alice', plan: 'pro', protection: true },
        { type: 'account.created', account: 'bruno', plan: 'basic', protection: false },
      ]);
      await plugin.idle();
      const client = createPageClient(plugin.url);
      await client.get(launchUrl(plugin, admin('dana')));
      const page = textOf((await client.get('/admin/settings')).body);
      expect(page).toMatch(/basic Not included 1/);
      expect(page).toMatch(/pro Included 1/);
      expect(page).toContain('14 days');

      const refused = await client.post('/admin/settings/package-grace', { days: 'soon' });
      expect(refused.status).toBe(400);
      expect(textOf(refused.body)).toContain('enter a whole number of days from 0 to 365');
      const saved = await client.post('/admin/settings/package-grace', { days: '30' });
      expect(saved.status).toBe(303);
      expect(textOf((await client.get('/admin/settings?saved=package-grace')).body)).toContain('30 days');
      expect(plugin.audit.listChanges({ what: 'package_grace_days' })).toMatchObject([{ actor: 'admin:dana', before: 14, after: 30 }]);
    });
  });
});

describe('wpp doctor: packages', () => {
  it('names the packages without protection, and warns of an account without it whose websites the provider still has', async () => {
    await withPlugin(async (plugin, sb) => {
      const report = () => checkPackages(plugin.config, Date.now, () => 14);
      expect(report()).toMatchObject({ status: 'ok', detail: expect.stringContaining('the panel has named no package yet') });
      await plugin.postEvents([
        { type: 'account.created', account: 'carla', plan: 'pro', protection: true },
        { type: 'domain.added', account: 'carla', domain: 'carla.example' },
      ]);
      await plugin.idle();
      await sb.control('POST', '/_sandbox/websites/carla.example/dns-verified');
      await plugin.postEvents([{ type: 'plan.changed', account: 'carla', plan: 'basic', protection: false }]);
      await plugin.idle();
      expect(report()).toMatchObject({
        status: 'warn',
        detail:
          '1 of 2 packages include web protection; not: basic; accounts without web protection that still have protected websites: carla (package basic): 1 website at the provider, paused until the grace period ends',
      });
      const later = checkPackages(
        plugin.config,
        () => Date.now() + 15 * DAY,
        () => 14,
      );
      expect(later.detail).toContain('grace period over: is `wpp serve` running, is its package.release job dead?');
    });
  });
});

describe('protection per package in each language', () => {
  it('words the Settings packages, the grace form, the launch without protection and the website it keeps out in English, German and Spanish', async () => {
    await withPlugin(async (plugin) => {
      await plugin.postEvents([
        { type: 'account.created', account: 'alice', plan: 'pro', protection: true },
        { type: 'account.created', account: 'bruno', plan: 'basic', protection: false },
        { type: 'domain.added', account: 'bruno', domain: 'bruno.example' },
      ]);
      await plugin.idle();
      await expectTranslated(
        plugin,
        [
          { name: 'settings with packages', as: 'admin', path: '/admin/settings', status: 200 },
          {
            name: 'grace period refused',
            as: 'admin',
            path: '/admin/settings',
            post: '/admin/settings/package-grace',
            fields: { days: 'x' },
            status: 400,
          },
          { name: 'grace period saved', as: 'admin', path: '/admin/settings?saved=package-grace', status: 200 },
          { name: 'website kept out by its package', as: 'admin', path: '/admin/websites/bruno.example', status: 200 },
          { name: 'launch without protection', as: 'customer', account: 'bruno', path: '/panel', status: 403 },
        ],
        ['alice-admin', 'admin:alice-admin'],
      );
    });
  });
});

describe('wpp import: the packages the panel names', () => {
  it('records them for the Settings page, with or without --apply, and applies only the accounts of packages with protection', async () => {
    await withPlugin(async (plugin) => {
      const file = `${plugin.dataDir}/listing.json`;
      writeFileSync(
        file,
        JSON.stringify({
          panel: 'file',
          packages: [
            { name: 'starter', protection: false },
            { name: 'pro', protection: true },
          ],
          accounts: [
            { account: 'sam', plan: 'starter', protection: false, domains: [{ domain: 'sam.example' }] },
            { account: 'pia', plan: 'pro', protection: true, domains: [{ domain: 'pia.example' }] },
          ],
        }),
      );
      const compared = await plugin.importPanel({ file }, { source: 'cli', apply: false, prune: false });
      expect(compared.queued).toBeNull();
      const client = createPageClient(plugin.url);
      await client.get(launchUrl(plugin, admin('dana')));
      const page = textOf((await client.get('/admin/settings')).body);
      expect(page).toMatch(/pro Included 0/);
      expect(page).toMatch(/starter Not included 0/);

      await plugin.importPanel({ file }, { source: 'cli', apply: true, prune: false });
      await plugin.idle();
      expect(plugin.accounts.getWebsite('pia.example')?.provisionedAt).not.toBeNull();
      // sam's domain was left out of the apply: the plugin has the account (and its package's answer), not the domain.
      expect(plugin.accounts.getWebsite('sam.example')).toBeNull();
      expect(plugin.accounts.getAccount('sam')).not.toBeNull();
    });
  });
});
