/**
 * Monitoring first, then protecting: a plan's days (or a run's) start new websites at the
 * provider in `paused`; the scheduled switch protects them when the days are over, on a moved
 * clock, once; it never ends somebody else's pause and leaves a website over its hit limit
 * paused; the customer's Protect now ends monitoring at once, for their own domains only.
 */
import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/time.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMonitoringRepo } from '../../src/db/monitoring.repo.js';
import { runWpp } from '../helpers/cli.js';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { admin, customer, launchUrl } from '../helpers/pages.js';
import { testEnv, withPlugin } from '../helpers/plugin.js';
import type { TestSandbox } from '../helpers/sandbox.js';

/** What the provider was asked for (a website whose DNS is not set shows pending_dns whatever was asked). */
const statusAt = async (sb: TestSandbox, domain: string) => {
  const website = await sb.control<{ status: string; requested_status?: string }>('GET', `/v1.0/website?domain=${domain}`);
  return website.requested_status ?? website.status;
};

describe('monitoring first, then protecting', () => {
  it("starts an auto-protected website in monitoring for its plan's days, and the schedule protects it when they are over, once", async () => {
    const clock = { offset: 0 };
    await withPlugin(
      async (plugin, sb) => {
        plugin.accounts.savePlan({ name: 'gold', settings: {}, subdomains: ['www'], monitorDays: 3 });
        await plugin.postEvents([
          { type: 'account.created', account: 'alice', plan: 'gold' },
          { type: 'domain.added', account: 'alice', domain: 'watch.example' },
          { type: 'account.created', account: 'bob' },
          { type: 'domain.added', account: 'bob', domain: 'at-once.example' },
        ]);
        await plugin.idle();
        const started = Date.now() + clock.offset;
        expect(plugin.accounts.getWebsite('watch.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: null });
        expect(await statusAt(sb, 'watch.example')).toBe('paused');
        const until = createMonitoringRepo(plugin.db).get('watch.example')?.until ?? 0;
        expect(Math.abs(until - (started + 3 * DAY_MS))).toBeLessThan(60_000);
        // The default plan sets no days: bob's website is protected at once.
        expect(plugin.accounts.getWebsite('at-once.example')?.desiredStatus).toBe('online');

        expect(await plugin.switchMonitoring()).toMatchObject({ protected: 0 });
        expect(await statusAt(sb, 'watch.example')).toBe('paused');

        clock.offset += 3 * DAY_MS + 60_000;
        expect(await plugin.switchMonitoring()).toEqual({ protected: 1, heldByLimit: 0, ended: 0, failed: 0 });
        expect(plugin.accounts.getWebsite('watch.example')).toMatchObject({ desiredStatus: 'online', pausedBy: null });
        expect(await statusAt(sb, 'watch.example')).not.toBe('paused');
        expect(await plugin.switchMonitoring()).toEqual({ protected: 0, heldByLimit: 0, ended: 0, failed: 0 });
      },
      { now: () => Date.now() + clock.offset },
    );
  });

  it("never ends somebody else's pause, and leaves a website whose hit limit is reached paused by the limit", async () => {
    const clock = { offset: 0 };
    await withPlugin(
      async (plugin, sb) => {
        plugin.accounts.savePlan({ name: 'default', settings: {}, subdomains: ['www'], monitorDays: 2 });
        await plugin.postEvents([
          { type: 'account.created', account: 'sam' },
          { type: 'domain.added', account: 'sam', domain: 'suspended.example' },
          { type: 'account.created', account: 'carl' },
          { type: 'domain.added', account: 'carl', domain: 'own-pause.example' },
          { type: 'account.created', account: 'lim' },
          { type: 'domain.added', account: 'lim', domain: 'limited.example' },
          { type: 'domain.added', account: 'lim', domain: 'free.example' },
        ]);
        await plugin.idle();
        // The panel suspends sam's account while his website is monitoring.
        await plugin.postEvents([{ type: 'account.suspended', account: 'sam' }]);
        await plugin.idle();
        expect(plugin.accounts.getWebsite('suspended.example')?.pausedBy).toBe('suspension');
        // carl's own pause (made while monitoring, e.g. in the provider's dashboard and read back).
        const carl = plugin.accounts.getWebsite('own-pause.example');
        if (!carl) throw new Error('own-pause.example was not set up');
        plugin.accounts.saveWebsite({ ...carl, pausedBy: 'customer' });
        // lim's limit is 0 hits for limited.example: reached; an enforcement pass records it.
        plugin.stats.setLimits('website', 'limited.example', { websiteHits: 0 });
        await plugin.enforceLimits();

        clock.offset += 2 * DAY_MS + 60_000;
        expect(await plugin.switchMonitoring()).toEqual({ protected: 1, heldByLimit: 1, ended: 2, failed: 0 });
        expect(plugin.accounts.getWebsite('suspended.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'suspension' });
        expect(plugin.accounts.getWebsite('own-pause.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'customer' });
        expect(plugin.accounts.getWebsite('limited.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'enforcement' });
        expect(plugin.accounts.getWebsite('free.example')).toMatchObject({ desiredStatus: 'online', pausedBy: null });
        for (const domain of ['suspended.example', 'own-pause.example', 'limited.example'])
          expect(await statusAt(sb, domain), domain).toBe('paused');

        // The limit raised: enforcement resumes what it holds, as for any pause of its own.
        plugin.stats.setLimits('website', 'limited.example', { websiteHits: 1000 });
        await plugin.enforceLimits();
        expect(plugin.accounts.getWebsite('limited.example')).toMatchObject({ desiredStatus: 'online', pausedBy: null });
        // The suspension ended after the days: protected, not monitoring again.
        await plugin.postEvents([{ type: 'account.unsuspended', account: 'sam' }]);
        await plugin.idle();
        expect(plugin.accounts.getWebsite('suspended.example')).toMatchObject({ desiredStatus: 'online', pausedBy: null });
      },
      { now: () => Date.now() + clock.offset },
    );
  });

  it("bulk protect's days: a number for every website, 0 for none, empty for each plan's; a bad number queues nothing", async () => {
    await withPlugin(
      async (plugin, sb) => {
        plugin.accounts.savePlan({ name: 'silver', settings: {}, subdomains: ['www'], monitorDays: 5 });
        await plugin.postEvents([
          { type: 'account.created', account: 'alice' },
          { type: 'domain.added', account: 'alice', domain: 'a1.example' },
          { type: 'account.created', account: 'sil', plan: 'silver' },
          { type: 'domain.added', account: 'sil', domain: 's1.example' },
        ]);
        await plugin.idle();
        const client = createPageClient(plugin.url);
        await client.get(launchUrl(plugin, admin('dana')));
        const page = textOf((await client.get('/admin/bulk-protect')).body);
        expect(page).toContain('Days of monitoring first');

        const bad = await client.post('/admin/bulk-protect', { monitor_days: '91' });
        expect(bad.status).toBe(400);
        expect(textOf(bad.body)).toContain('at most 90 days');
        expect(plugin.jobs.counts().pending).toBe(0);

        await client.get('/admin/bulk-protect');
        expect((await client.post('/admin/bulk-protect', { monitor_days: '' })).status).toBe(303);
        await plugin.idle();
        const repo = createMonitoringRepo(plugin.db);
        // Empty: each plan's days. alice's default plan has none: protected at once; sil's silver plan: 5 days.
        expect(plugin.accounts.getWebsite('a1.example')?.desiredStatus).toBe('online');
        expect(plugin.accounts.getWebsite('s1.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: null });
        expect(await statusAt(sb, 's1.example')).toBe('paused');
        expect((repo.get('s1.example')?.until ?? 0) - Date.now()).toBeGreaterThan(5 * DAY_MS - 60_000);

        await plugin.postEvents([{ type: 'domain.added', account: 'alice', domain: 'a2.example' }]);
        await plugin.idle();
        await client.get('/admin/bulk-protect');
        await client.post('/admin/bulk-protect', { monitor_days: '14' });
        await plugin.idle();
        expect(plugin.accounts.getWebsite('a2.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: null });
        expect(repo.get('a2.example')).toMatchObject({ chosenBy: 'bulk:dana' });
        expect((repo.get('a2.example')?.until ?? 0) - Date.now()).toBeGreaterThan(14 * DAY_MS - 60_000);
        const website = textOf((await client.get('/admin/websites/a2.example')).body);
        expect(website).toContain('Monitoring until');
      },
      { env: { WPP_AUTO_PROTECT: 'false' } },
    );
  });

  it('Protect now: the customer ends monitoring of their own domain at once, and cannot for another account’s', async () => {
    await withPlugin(async (plugin, sb) => {
      plugin.accounts.savePlan({ name: 'default', settings: {}, subdomains: ['www'], monitorDays: 7 });
      await plugin.postEvents([
        { type: 'account.created', account: 'alice' },
        { type: 'domain.added', account: 'alice', domain: 'alice.example' },
        { type: 'account.created', account: 'mallory' },
        { type: 'domain.added', account: 'mallory', domain: 'mallory.example' },
      ]);
      await plugin.idle();
      const mallory = createPageClient(plugin.url);
      await mallory.get(launchUrl(plugin, customer('mallory')));
      const own = textOf((await mallory.get('/panel/domains/mallory.example')).body);
      expect(own).toContain('We watch your traffic, we block nothing yet');
      expect(own).toContain('Protection starts by itself on');
      expect(own).toContain('Protect now');

      const other = await mallory.post('/panel/domains/alice.example/protect', { return_to: 'domain' });
      expect(other.status).toBe(404);
      expect(plugin.accounts.getWebsite('alice.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: null });
      expect(await statusAt(sb, 'alice.example')).toBe('paused');

      await mallory.get('/panel/domains/mallory.example');
      const mine = await mallory.post('/panel/domains/mallory.example/protect', { return_to: 'domain' });
      expect(mine.status).toBe(303);
      expect(plugin.accounts.getWebsite('mallory.example')).toMatchObject({ desiredStatus: 'online', pausedBy: null });
      expect(await statusAt(sb, 'mallory.example')).not.toBe('paused');
      expect(createMonitoringRepo(plugin.db).get('mallory.example')).toBeNull();
      expect(textOf((await mallory.get('/panel/domains/mallory.example')).body)).not.toContain('Protect now');
    });
  });

  it("wpp import --apply --monitor-days: the domains it adds start monitoring for those days, whatever the plan; wpp plans set --monitor-days sets a plan's", async () => {
    await withPlugin(async (plugin, sb) => {
      const env = testEnv(plugin.dataDir, sb);
      const plans = await runWpp(['plans', 'set', 'default', '--monitor-days', '9'], { env });
      expect(plans.stderr).toBe('');
      expect(plans.stdout).toContain('monitor-days=9');
      const refused = await runWpp(['plans', 'set', 'default', '--monitor-days', '365'], { env });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('--monitor-days: is at most 90 days');
      expect(plugin.accounts.getPlan('default')?.monitorDays).toBe(9);

      const file = join(plugin.dataDir, 'listing.json');
      writeFileSync(
        file,
        JSON.stringify({ panel: 'listing', accounts: [{ account: 'ivy', domains: [{ domain: 'ivy.example', subdomains: [] }] }] }),
      );
      const alone = await runWpp(['import', '--file', file, '--monitor-days', '4'], { env });
      expect(alone.stderr).toContain('--monitor-days only goes with --apply');
      const applied = await runWpp(['import', '--file', file, '--apply', '--monitor-days', '4'], { env });
      expect(applied.stderr).toBe('');
      expect(applied.stdout).toContain('queued 2 events');
      await plugin.idle();
      expect(plugin.accounts.getWebsite('ivy.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: null });
      expect(await statusAt(sb, 'ivy.example')).toBe('paused');
      const choice = createMonitoringRepo(plugin.db).get('ivy.example');
      expect(choice?.chosenBy).toBe('import');
      // The run's 4 days, not the plan's 9.
      expect((choice?.until ?? 0) - Date.now()).toBeGreaterThan(4 * DAY_MS - 120_000);
      expect((choice?.until ?? 0) - Date.now()).toBeLessThan(4 * DAY_MS + 1000);
    });
  });

  it("an admin's pause made while monitoring holds past the days; a suspension ended before them returns to monitoring", async () => {
    const clock = { offset: 0 };
    await withPlugin(
      async (plugin, sb) => {
        plugin.accounts.savePlan({ name: 'default', settings: {}, subdomains: ['www'], monitorDays: 2 });
        await plugin.postEvents([
          { type: 'account.created', account: 'ann' },
          { type: 'domain.added', account: 'ann', domain: 'held.example' },
          { type: 'account.created', account: 'sue' },
          { type: 'domain.added', account: 'sue', domain: 'back.example' },
        ]);
        await plugin.idle();
        const client = createPageClient(plugin.url);
        await client.get(launchUrl(plugin, admin('dana'), { now: Date.now() + clock.offset }));
        await client.get('/admin/websites/held.example');
        expect((await client.post('/admin/websites/held.example/pause')).status).toBe(303);
        expect(plugin.accounts.getWebsite('held.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'admin' });

        await plugin.postEvents([{ type: 'account.suspended', account: 'sue' }]);
        await plugin.idle();
        await plugin.postEvents([{ type: 'account.unsuspended', account: 'sue' }]);
        await plugin.idle();
        expect(plugin.accounts.getWebsite('back.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: null });
        expect(await statusAt(sb, 'back.example')).toBe('paused');

        clock.offset += 2 * DAY_MS + 60_000;
        expect(await plugin.switchMonitoring()).toEqual({ protected: 1, heldByLimit: 0, ended: 1, failed: 0 });
        expect(plugin.accounts.getWebsite('held.example')).toMatchObject({ desiredStatus: 'paused', pausedBy: 'admin' });
        expect(await statusAt(sb, 'held.example')).toBe('paused');
        expect(plugin.accounts.getWebsite('back.example')).toMatchObject({ desiredStatus: 'online', pausedBy: null });
      },
      { now: () => Date.now() + clock.offset },
    );
  });
});
