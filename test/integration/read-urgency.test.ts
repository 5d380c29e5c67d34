/**
 * The adaptive tick's reads in the server's request budget (docs/fleet.md, "The fleet budget"):
 * the reads of websites at risk (planned a few minutes after their last read: near a limit)
 * take urgent tokens and go first; quiet websites' reads take background tokens, after them.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { readTick } from '../../src/core/read-tick.js';
import { createProviderClient, type ProviderPriority } from '../../src/provider/index.js';
import { protectedWebsite, withPlugin } from '../helpers/plugin.js';

const MINUTE = 60_000;

describe('the read tick and the request budget', () => {
  it("reads the websites at risk first, with urgent tokens, and quiet websites' with background ones", async () => {
    await withPlugin(
      async (plugin, sandbox) => {
        const domains = ['quiet1.example', 'quiet2.example', 'risky1.example', 'risky2.example'];
        for (const domain of domains) await protectedWebsite(plugin, sandbox, 'ann', domain);
        const now = Date.now();
        // The quiet ones are due first (an hour's gap, a minute late); the risky ones were planned two minutes after their last read.
        const plan = plugin.db.prepare('UPDATE read_schedule SET last_read_at = ?, next_read_at = ? WHERE domain = ?');
        plan.run(now - 61 * MINUTE, now - MINUTE, 'quiet1.example');
        plan.run(now - 61 * MINUTE, now - MINUTE, 'quiet2.example');
        plan.run(now - 2 * MINUTE - 1000, now - 1000, 'risky1.example');
        plan.run(now - 2 * MINUTE - 1000, now - 1000, 'risky2.example');

        const taken: ProviderPriority[] = [];
        const client = createProviderClient({
          baseUrl: sandbox.url,
          apiKey: sandbox.partnerKey,
          budget: { take: async (priority) => void taken.push(priority), report: () => undefined },
        });
        const result = await readTick(
          {
            stats: plugin.stats,
            accounts: plugin.accounts,
            schedule: plugin.schedule,
            provider: client,
            urgentProvider: client.withPriority('urgent'),
            logger: pino({ level: 'silent' }),
            now: Date.now,
            enforceAccounts: async () => ({ skipped: false, paused: 0, failed: 0 }),
          },
          { budget: 10, concurrency: 1 },
        );
        expect(result.read).toBe(4);
        expect(taken).toEqual(['urgent', 'urgent', 'background', 'background']);
      },
      { env: { WPP_SYNC_RATE: '0' } },
    );
  });
});
