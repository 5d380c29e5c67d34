/**
 * Bulk protect as an admin uses it: the preview lists every known domain not yet protected
 * (left in setup while auto-protect was off, or whose set-up failed) and changes nothing;
 * the run protects them all at the provider through the worker, once however often clicked.
 */
import { describe, expect, it } from 'vitest';
import { createPageClient, textOf } from '../helpers/page-client.js';
import { admin, launchUrl } from '../helpers/pages.js';
import { withPlugin } from '../helpers/plugin.js';

describe('bulk protect', () => {
  it('previews, then protects every website in setup and retries a failed set-up, recorded with the admin', async () => {
    await withPlugin(
      async (plugin, sb) => {
        // carol may protect one domain: her second set-up fails (permanently: dead at once).
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
        expect(plugin.jobs.counts().dead).toBe(1);
        const statusAt = async (domain: string) => (await sb.control<{ status: string }>('GET', `/v1.0/website?domain=${domain}`)).status;
        expect(await statusAt('a1.example')).toBe('setup');

        const client = createPageClient(plugin.url);
        await client.get(launchUrl(plugin, admin('dana')));
        const preview = await client.get('/admin/bulk-protect');
        expect(preview.status).toBe(200);
        const text = textOf(preview.body);
        expect(text).toContain('3 websites will be switched from not protected to protected');
        expect(text).toContain('1 failed set-up will be tried again');
        expect(text).toMatch(/c2\.example carol .* may protect at most 1 domain/);
        expect(await statusAt('a1.example')).toBe('setup');

        plugin.stats.setLimits('account', 'carol', { domainLimit: 5 });
        const run = await client.post('/admin/bulk-protect');
        expect(run.status).toBe(303);
        expect(run.headers.get('location')).toBe('/admin/bulk-protect?protecting=3&retried=1');
        // A second click while the first run's jobs wait queues nothing more.
        await client.get('/admin/bulk-protect');
        await client.post('/admin/bulk-protect');
        await plugin.idle();
        // Bulk protect's work is background (docs/fleet.md): its jobs and the set-up it retried wait for the panel's own.
        const jobs = plugin.jobs.list({ limit: 100 });
        const protectJobs = jobs.filter((j) => j.kind === 'website.protect');
        expect(protectJobs.length).toBeGreaterThanOrEqual(3);
        expect(protectJobs.every((j) => j.background)).toBe(true);
        const retried = jobs.filter((j) => j.kind === 'panel.event' && (j.payload as { domain?: string }).domain === 'c2.example');
        expect(retried.map((j) => j.background)).toEqual([true]);
        expect(jobs.filter((j) => j.kind === 'panel.event' && j.background)).toHaveLength(1);

        for (const domain of ['a1.example', 'a2.example', 'c1.example', 'c2.example']) {
          expect(plugin.accounts.getWebsite(domain)?.desiredStatus, domain).toBe('online');
          expect(await statusAt(domain), domain).not.toBe('setup');
        }
        const protectCalls = (await sb.control<{ method: string; path: string }[]>('GET', '/_sandbox/requests?limit=1000')).filter(
          (r) => r.method === 'PUT' && r.path === '/v1.0/website/a1.example',
        );
        expect(protectCalls).toHaveLength(1);
        const after = textOf((await client.get('/admin/bulk-protect')).body);
        expect(after).toContain('Every domain the plugin knows is protected');
        expect(plugin.audit.listChanges({ what: 'bulk_protect' })).toMatchObject([
          { actor: 'admin:dana', after: { protecting: 3, retried: 1 } },
        ]);
      },
      { env: { WPP_AUTO_PROTECT: 'false' } },
    );
  });

  it('is for admins only: a customer session gets no preview and runs nothing', async () => {
    await withPlugin(async (plugin) => {
      const client = createPageClient(plugin.url);
      await client.get(launchUrl(plugin, { role: 'customer', account: 'alice', panel: 'test' }));
      expect((await client.get('/admin/bulk-protect')).status).toBe(401);
      expect((await client.post('/admin/bulk-protect')).status).toBe(401);
    });
  });
});
