/**
 * An import's work is background (docs/fleet.md, "One budget per server"): the events
 * `wpp import --apply` queues are jobs marked background, claimed after the panel's own events
 * and sent with background tokens, so a customer's new domain from the panel's hook reaches
 * the provider while a big import's backlog waits, on a key at a low rate.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { createJobQueue } from '../../src/core/job-queue.js';
import { createServices } from '../../src/core/services.js';
import { createMonitoringRepo } from '../../src/db/monitoring.repo.js';
import { createUnprotectedRepo } from '../../src/db/unprotected.repo.js';
import { createProviderClient, type ProviderPriority } from '../../src/provider/index.js';
import { generateAccounts, listingFileOf } from '../helpers/panel-listings.js';
import { startTestPlugin, withPlugin } from '../helpers/plugin.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { removeTempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

describe("an import's backlog and the panel's new domain on one request budget", () => {
  it("sends the panel hook's new domain first while an import of many accounts runs", async () => {
    // The key allows 8 requests a second; the server would send 40 (WPP_SYNC_RATE) and learns the key's rate from its 429s.
    const sandbox = await startTestSandbox({ certDelaySeconds: 0, rateLimitPerSecond: 8 });
    const plugin = await startTestPlugin(sandbox, { env: { WPP_SYNC_RATE: '40' } });
    try {
      await plugin.idle();
      // Forty accounts of one domain each: about 160 provider calls, twenty seconds at the key's rate.
      const file = join(plugin.dataDir, 'listing.json');
      writeFileSync(file, JSON.stringify(listingFileOf(generateAccounts(40, 40))));
      const imported = await plugin.importPanel({ file }, { source: 'cli', apply: true, prune: false });
      expect(imported.queued).toBeGreaterThanOrEqual(80);
      const panelJobs = () => plugin.jobs.list({ limit: 1000 }).filter((job) => job.kind === 'panel.event');
      // The import's jobs carry how they were made.
      expect(panelJobs().every((job) => job.background)).toBe(true);
      // Past the first second, whose 429s (the server starts at its ceiling, 40) hold every call until their Retry-After.
      await new Promise((resolve) => setTimeout(resolve, 2500));

      const addedAt = Date.now();
      await plugin.postEvents([{ type: 'domain.added', account: 'newcomer', domain: 'urgent.example' }]);
      await waitFor(() => Boolean(plugin.accounts.getWebsite('urgent.example')?.providerStatus), 30_000, 'the new domain at the provider');
      const provisionedAt = Date.now();
      const hookJob = panelJobs().find((job) => (job.payload as { domain?: string }).domain === 'urgent.example');
      expect(hookJob?.background).toBe(false);
      const importLeft = panelJobs().filter((job) => job.background && job.state !== 'done').length;
      const figures = { newDomainMs: provisionedAt - addedAt, importJobs: imported.queued, importJobsLeft: importLeft };
      // For the figures in docs/fleet.md: one JSON line appended to the file named.
      if (process.env.WPP_TEST_PACER_LOG) appendFileSync(process.env.WPP_TEST_PACER_LOG, `${JSON.stringify(figures)}\n`);
      // The new domain did not wait for the import: it was at the provider with most of the import still to do.
      expect(provisionedAt - addedAt).toBeLessThan(2000);
      expect(importLeft).toBeGreaterThan(imported.queued! / 2);
    } finally {
      await plugin.close();
      await sandbox.close();
      removeTempDir(plugin.dataDir);
      removeTempDir(sandbox.dataDir);
    }
  }, 90_000);

  it("takes background tokens for a background job's event and bulk protect's, urgent ones for the panel's own and a click", async () => {
    await withPlugin(
      async (plugin, sandbox) => {
        const taken: ProviderPriority[] = [];
        const provider = createProviderClient({
          baseUrl: sandbox.url,
          apiKey: sandbox.partnerKey,
          budget: { take: async (priority) => void taken.push(priority), report: () => undefined },
        });
        const services = createServices({
          ...plugin,
          provider,
          logger: pino({ level: 'silent' }),
          now: Date.now,
          settings: {
            accountDomain: 'panel.example',
            publicUrl: plugin.url,
            callbackKey: 'test-callback-key',
            server: { ip: '192.0.2.5', name: 'web1.host.example', zone: undefined, tag: undefined },
          },
          autoProtect: () => false,
          sync: { concurrency: 2, ratePerSecond: 0 },
          notify: undefined,
          signal: new AbortController().signal,
          track: (pass) => pass,
          queue: createJobQueue({ jobs: plugin.jobs, maxAttempts: 3, onQueued: () => undefined }),
          unprotected: createUnprotectedRepo(plugin.db),
          monitoring: createMonitoringRepo(plugin.db),
        });
        const prioritiesOf = async (work: () => Promise<unknown>) => {
          taken.length = 0;
          await work();
          return [...new Set(taken)];
        };
        const event = (id: string, domain: string) =>
          ({ id, occurredAt: new Date().toISOString(), type: 'domain.added', account: 'ivy', domain }) as const;
        // An import's event (a background job), then the panel's own: both set a website up (auto-protect off: in setup).
        expect(await prioritiesOf(() => services.provisioning.handle(event('i1', 'imported.example'), { background: true }))).toEqual([
          'background',
        ]);
        expect(await prioritiesOf(() => services.provisioning.handle(event('h1', 'hooked.example')))).toEqual(['urgent']);
        // Bulk protect's queued job protects with background tokens; an admin's click with urgent ones.
        expect(await prioritiesOf(() => services.bulkProtect.protectQueued('imported.example', 'dana'))).toEqual(['background']);
        expect(await prioritiesOf(() => services.protection.protect('hooked.example', { kind: 'admin', admin: 'dana' }))).toEqual([
          'urgent',
        ]);
        expect(plugin.accounts.getWebsite('imported.example')?.desiredStatus).toBe('online');
      },
      { env: { WPP_SYNC_RATE: '0' }, worker: false },
    );
  });
});
