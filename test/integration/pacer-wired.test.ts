/**
 * The pacer wired in (docs/fleet.md, "One budget per server"): a running plugin's provider
 * calls take their tokens from the data folder's shared bucket, within WPP_SYNC_RATE.
 */
import { appendFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { createProvisioning } from '../../src/core/provisioning.js';
import { createPacerBucketRepo } from '../../src/db/pacer-bucket.repo.js';
import { createProviderClient, type ProviderPriority } from '../../src/provider/index.js';
import { removeTempDir } from '../helpers/temp.js';
import { protectedWebsite, startTestPlugin, withPlugin } from '../helpers/plugin.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';
import { providerAnswers } from '../helpers/provider-answers.js';

describe('the pacer of a running plugin', () => {
  it("takes every provider call's token from the data folder's bucket, at most WPP_SYNC_RATE", async () => {
    await withPlugin(
      async (plugin, sandbox) => {
        expect(createPacerBucketRepo(plugin.db).get()).toBeUndefined();
        await protectedWebsite(plugin, sandbox, 'alice', 'alice.example');
        const bucket = createPacerBucketRepo(plugin.db).get();
        expect(bucket).toBeDefined();
        expect(bucket!.rate).toBeLessThanOrEqual(25);
        expect(bucket!.tokens).toBeLessThan(25);
      },
      { env: { WPP_SYNC_RATE: '25' } },
    );
  });

  it('paces nothing when WPP_SYNC_RATE is 0 (no limit)', async () => {
    await withPlugin(
      async (plugin, sandbox) => {
        await protectedWebsite(plugin, sandbox, 'bob', 'bob.example');
        expect(createPacerBucketRepo(plugin.db).get()).toBeUndefined();
      },
      { env: { WPP_SYNC_RATE: '0' } },
    );
  });

  it("sends a new domain's calls before a statistics sync's backlog on a key at a low rate, with few 429s", async () => {
    // The key allows 8 requests a second; the server would send 40 (WPP_SYNC_RATE) and learns the key's rate from its 429s.
    const sandbox = await startTestSandbox({ certDelaySeconds: 0, rateLimitPerSecond: 8 });
    const plugin = await startTestPlugin(sandbox, { env: { WPP_SYNC_RATE: '40' } });
    try {
      const domains = Array.from({ length: 32 }, (_, i) => `s${i}.example`);
      await plugin.postEvents(domains.map((domain) => ({ type: 'domain.added', account: 'sam', domain })));
      await plugin.idle(60_000);
      // 32 background reads at about 8 a second: a backlog of four seconds.
      let syncDoneAt = 0;
      const sync = plugin.syncStatistics().then((result) => {
        syncDoneAt = Date.now();
        return result;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const addedAt = Date.now();
      await plugin.postEvents([{ type: 'domain.added', account: 'sam', domain: 'urgent.example' }]);
      await waitFor(() => Boolean(plugin.accounts.getWebsite('urgent.example')?.providerStatus), 20_000, 'the new domain at the provider');
      const provisionedAt = Date.now();
      expect((await sync).read).toBe(32);
      // The new domain did not wait for the backlog: it was at the provider well before the sync ended.
      expect(provisionedAt - addedAt).toBeLessThan(1500);
      expect(syncDoneAt - provisionedAt).toBeGreaterThan(1000);
      const answers = await providerAnswers(plugin.url);
      // For the figures in docs/fleet.md: one JSON line appended to the file named.
      const figures = { newDomainMs: provisionedAt - addedAt, syncEndedAfterMs: syncDoneAt - provisionedAt, ...answers };
      if (process.env.WPP_TEST_PACER_LOG) appendFileSync(process.env.WPP_TEST_PACER_LOG, `${JSON.stringify(figures)}\n`);
      expect(answers.limited / answers.all).toBeLessThan(0.1);
    } finally {
      await plugin.close();
      await sandbox.close();
      removeTempDir(plugin.dataDir);
      removeTempDir(sandbox.dataDir);
    }
  }, 90_000);

  it("looks a website up for a refresh with background tokens, a new domain's calls with urgent ones", async () => {
    await withPlugin(
      async (plugin, sandbox) => {
        await protectedWebsite(plugin, sandbox, 'dora', 'dora.example');
        const taken: ProviderPriority[] = [];
        const client = createProviderClient({
          baseUrl: sandbox.url,
          apiKey: sandbox.partnerKey,
          budget: { take: async (priority) => void taken.push(priority), report: () => undefined },
        });
        const provisioning = createProvisioning({
          accounts: plugin.accounts,
          provider: client.withPriority('urgent'),
          refreshProvider: client,
          settings: {
            accountDomain: 'panel.example',
            publicUrl: plugin.url,
            callbackKey: 'test-callback-key',
            server: { ip: '192.0.2.5', name: 'web1.host.example', zone: undefined, tag: undefined },
          },
          autoProtect: () => true,
          logger: pino({ level: 'silent' }),
        });
        await provisioning.refreshWebsite('dora.example');
        expect(taken).toEqual(['background']);
        taken.length = 0;
        await provisioning.handle({
          id: 'e1',
          occurredAt: new Date().toISOString(),
          type: 'domain.added',
          account: 'dora',
          domain: 'dora2.example',
        });
        expect(taken.length).toBeGreaterThan(0);
        expect(new Set(taken)).toEqual(new Set(['urgent']));
      },
      { env: { WPP_SYNC_RATE: '0' } },
    );
  });
});
