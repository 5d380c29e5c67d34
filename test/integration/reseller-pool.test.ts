/**
 * A reseller's pooled hit limit end to end (issue 22): traffic injected into the sandbox,
 * statistics synced into SQLite, enforcement warning, pausing and resuming at the sandbox the
 * websites of the reseller's customers, on an injected clock. Another reseller's customer, an
 * exempt account and a website an admin resumed are left alone.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { englishTranslate } from '../../src/cli/english.js';
import { createEnforcement } from '../../src/core/enforcement.js';
import { applyLimitsChange, parseLimitsChange } from '../../src/core/limits-change.js';
import { resellerUsageNow } from '../../src/core/reseller-limits.js';
import { withPlugin } from '../helpers/plugin.js';
import type { TestSandbox } from '../helpers/sandbox.js';

type Plugin = Parameters<Parameters<typeof withPlugin>[0]>[0];

const at = (iso: string) => Date.parse(iso);

function manualClock(start: string) {
  let now = at(start);
  return { now: () => now, set: (iso: string) => void (now = at(iso)) };
}

/** Websites of accounts, each account handed to its reseller as the panel's listing would say. */
async function provision(plugin: Plugin, sites: [reseller: string | null, account: string, domain: string][]) {
  await plugin.postEvents(sites.map(([, account, domain]) => ({ type: 'domain.added', account, domain })));
  await plugin.idle();
  for (const [reseller, account] of sites) plugin.accounts.setAccountReseller(account, reseller);
}

const traffic = (sb: TestSandbox, domain: string, hits: number) => sb.control('POST', `/_sandbox/websites/${domain}/traffic`, { hits });
const requested = async (sb: TestSandbox, domain: string) =>
  (await sb.control<{ requested_status: string }>('GET', `/v1.0/website?domain=${domain}`)).requested_status;
const actions = (plugin: Plugin) => plugin.stats.recentActions(1000).reverse();

/** The admin sets a reseller's pool as the Settings page and `wpp limits` do: the same rules, recorded with who. */
function setPool(plugin: Plugin, reseller: string, poolHits: number) {
  const result = parseLimitsChange(
    { scope: 'reseller', subject: reseller, 'pool-hits': String(poolHits) },
    (scope, subject) => plugin.stats.limitSubjectExists(scope, subject),
    englishTranslate(),
  );
  if (!result?.ok) throw new Error(`pool refused: ${JSON.stringify(result)}`);
  applyLimitsChange({ stats: plugin.stats, audit: plugin.audit }, result.change, 'admin:root');
}

async function syncAndEnforce(plugin: Plugin) {
  await plugin.syncStatistics();
  return plugin.enforceLimits();
}

describe("a reseller's pooled hit limit", () => {
  it("warns, then pauses the websites of all the reseller's customers together, and resumes them when the admin raises the pool", async () => {
    const clock = manualClock('2026-11-22T12:00:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await provision(plugin, [
          ['r1', 'alice', 'a1.example'],
          ['r1', 'alice', 'a2.example'],
          ['r1', 'bob', 'b1.example'],
          ['r1', 'dave', 'd1.example'],
          ['r2', 'carol', 'c1.example'],
          [null, 'hank', 'h1.example'],
        ]);
        // Dave's account is exempt: it counts towards the pool, and is never paused nor warned.
        plugin.stats.setLimits('account', 'dave', { exempt: true });
        setPool(plugin, 'r1', 1000);
        await traffic(sb, 'a1.example', 400);
        await traffic(sb, 'b1.example', 350);
        await traffic(sb, 'd1.example', 100);
        await traffic(sb, 'c1.example', 5000);
        await traffic(sb, 'h1.example', 5000);

        // 850 of 1,000: each of r1's customers (not exempt dave) is warned, nothing paused.
        expect(await syncAndEnforce(plugin)).toMatchObject({ paused: 0, warnings: 2, failed: 0 });
        expect(
          actions(plugin)
            .filter((a) => a.action === 'warning')
            .map((a) => [a.account, a.domain, a.reason, a.usage, a.limitValue]),
        ).toEqual([
          ['alice', null, 'reseller_warning', 850, 1000],
          ['bob', null, 'reseller_warning', 850, 1000],
        ]);

        // Alice's second website takes the pool over: both customers' websites pause, whoever used it.
        await traffic(sb, 'a2.example', 200);
        expect(await syncAndEnforce(plugin)).toMatchObject({ paused: 3, warnings: 0, failed: 0 });
        for (const domain of ['a1.example', 'a2.example', 'b1.example']) {
          expect(await requested(sb, domain)).toBe('paused');
          expect(plugin.accounts.getWebsite(domain)).toMatchObject({ desiredStatus: 'paused', pausedBy: 'enforcement' });
        }
        for (const domain of ['d1.example', 'c1.example', 'h1.example']) expect(await requested(sb, domain)).toBe('online');
        expect(
          actions(plugin)
            .filter((a) => a.action === 'pause')
            .map((a) => [a.account, a.domain, a.reason, a.usage, a.limitValue, a.periodStart])
            .sort((x, y) => String(x[1]).localeCompare(String(y[1]))),
        ).toEqual([
          ['alice', 'a1.example', 'reseller_limit', 1050, 1000, at('2026-11-01T00:00:00Z')],
          ['alice', 'a2.example', 'reseller_limit', 1050, 1000, at('2026-11-01T00:00:00Z')],
          ['bob', 'b1.example', 'reseller_limit', 1050, 1000, at('2026-11-01T00:00:00Z')],
        ]);
        expect(resellerUsageNow(plugin, 'r1', clock.now())).toMatchObject({
          hits: 1050,
          limit: 1000,
          accounts: [
            { account: 'alice', hits: 600 },
            { account: 'bob', hits: 350 },
            { account: 'dave', hits: 100 },
          ],
        });

        // Again: nothing new is done or recorded.
        const recorded = actions(plugin).length;
        expect(await plugin.enforceLimits()).toMatchObject({ paused: 0, resumed: 0, warnings: 0 });
        expect(actions(plugin)).toHaveLength(recorded);

        // The admin raises the pool: every website the pool paused comes back, the change recorded.
        setPool(plugin, 'r1', 5000);
        expect(await plugin.enforceLimits()).toMatchObject({ paused: 0, resumed: 3, failed: 0 });
        for (const domain of ['a1.example', 'a2.example', 'b1.example']) expect(await requested(sb, domain)).toBe('online');
        expect(
          actions(plugin)
            .filter((a) => a.action === 'resume')
            .map((a) => [a.domain, a.reason])
            .sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
        ).toEqual([
          ['a1.example', 'limit_raised'],
          ['a2.example', 'limit_raised'],
          ['b1.example', 'limit_raised'],
        ]);
        expect(plugin.audit.listChanges({ limit: 5 })[0]).toMatchObject({ actor: 'admin:root', what: 'limits:reseller:r1' });
      },
      { now: clock.now },
    );
  });

  it("pauses the whole pool when a tick read only one customer, and resumes it in the next period; an admin's resume holds", async () => {
    const clock = manualClock('2026-11-22T12:00:00Z');
    await withPlugin(
      async (plugin, sb) => {
        await provision(plugin, [
          ['r1', 'alice', 'a1.example'],
          ['r1', 'bob', 'b1.example'],
          ['r1', 'bob', 'b2.example'],
        ]);
        setPool(plugin, 'r1', 500);
        await traffic(sb, 'a1.example', 600);
        await plugin.syncStatistics();
        // The adaptive tick enforces the accounts it read: alice's pool is used up, so bob's websites pause with hers.
        const enforcement = createEnforcement({
          stats: plugin.stats,
          accounts: plugin.accounts,
          provider: plugin.provider,
          logger: pino({ level: 'silent' }),
          now: clock.now,
        });
        expect(await enforcement.enforceAccounts(['alice'])).toMatchObject({ paused: 3, skipped: false });
        for (const domain of ['a1.example', 'b1.example', 'b2.example']) expect(await requested(sb, domain)).toBe('paused');

        // The admin resumes one website for the rest of the period: the pool leaves it online.
        await plugin.adminResume('b2.example', 'root');
        expect(await plugin.enforceLimits()).toMatchObject({ paused: 0, resumed: 0 });
        expect(await requested(sb, 'b2.example')).toBe('online');

        // A new period empties the pool: the websites it paused come back.
        clock.set('2026-12-01T00:30:00Z');
        expect(await plugin.enforceLimits()).toMatchObject({ paused: 0, resumed: 2 });
        expect(
          actions(plugin)
            .filter((a) => a.action === 'resume')
            .map((a) => [a.domain, a.reason])
            .sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
        ).toEqual([
          ['a1.example', 'period_rollover'],
          ['b1.example', 'period_rollover'],
        ]);
        for (const domain of ['a1.example', 'b1.example', 'b2.example']) expect(await requested(sb, domain)).toBe('online');
      },
      { now: clock.now },
    );
  });
});
