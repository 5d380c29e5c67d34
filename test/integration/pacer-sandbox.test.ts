/**
 * Two servers on one partner key, against the sandbox's per-key rate limit (issue 23, section 2):
 * each server is the real provider client with its own pacer, taking a token before every call
 * and reporting each answer, as the plugin's calls will once the pacer is wired. Without a
 * coordinator they settle near the key's rate with few 429s; today's fixed rate per server
 * lives on 429s. Real time on loopback: each run lasts a few seconds and stops by itself.
 */
import { appendFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryBucket, createPacer, systemClock, type Pacer, type PacerSettings } from '../../src/core/pacer.js';
import { createProviderClient, isProviderError } from '../../src/provider/index.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const KEY_RATE = 20;
const TODAY_RATE = 40;
const RUN_MS = 6000;
/** The first seconds are the learning; the settled rate is measured after them. */
const SETTLE_MS = 2000;

let sandbox: TestSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

/** When each call succeeded, and when each met a 429. */
interface Tally {
  ok: number[];
  limited: number[];
}

/** One server: four callers sending through its pacer until the end; `learn` reports each answer to it. */
async function runServer(sb: TestSandbox, pacer: Pacer, learn: boolean, until: number, tally: Tally): Promise<void> {
  // No retries inside the client: the test counts every 429 (a wired client reports its retries to its budget itself: provider-budget.test.ts).
  const client = createProviderClient({ baseUrl: sb.url, apiKey: sb.partnerKey, retry: { limit: 0 } });
  const caller = async () => {
    while (Date.now() < until) {
      await pacer.take('background');
      if (Date.now() >= until) return;
      try {
        await client.listUsers();
        tally.ok.push(Date.now());
        if (learn) pacer.report('ok');
      } catch (error) {
        if (!isProviderError(error, 'PROVIDER_RATE_LIMITED')) throw error;
        tally.limited.push(Date.now());
        if (learn) pacer.report({ rateLimited: true, retryAfterMs: error.retryAfterMs });
      }
    }
  };
  await Promise.all([caller(), caller(), caller(), caller()]);
}

/** Two servers on one key for RUN_MS: the requests, the 429s, and the successes a second once settled. */
async function twoServers(settings: PacerSettings, learn: boolean) {
  sandbox = await startTestSandbox({ rateLimitPerSecond: KEY_RATE });
  const started = Date.now();
  const until = started + RUN_MS;
  const tallies: Tally[] = [
    { ok: [], limited: [] },
    { ok: [], limited: [] },
  ];
  await Promise.all(
    tallies.map((tally) =>
      runServer(sandbox!, createPacer({ source: createMemoryBucket(settings, Date.now()), clock: systemClock }), learn, until, tally),
    ),
  );
  const count = (pick: (tally: Tally) => number[], from = started) =>
    tallies.reduce((sum, tally) => sum + pick(tally).filter((at) => at >= from).length, 0);
  const ok = count((tally) => tally.ok);
  const limited = count((tally) => tally.limited);
  const settledOk = count((tally) => tally.ok, started + SETTLE_MS);
  const settledLimited = count((tally) => tally.limited, started + SETTLE_MS);
  const figures = {
    requests: ok + limited,
    limited,
    limitedShare: limited / (ok + limited),
    settledLimitedShare: settledLimited / (settledOk + settledLimited),
    settledOkPerSecond: settledOk / ((RUN_MS - SETTLE_MS) / 1000),
    okPerServer: tallies.map((tally) => tally.ok.length),
  };
  // For the figures in docs/fleet.md: one JSON line per run appended to the file named.
  if (process.env.WPP_TEST_PACER_LOG) appendFileSync(process.env.WPP_TEST_PACER_LOG, `${JSON.stringify({ learn, ...figures })}\n`);
  return figures;
}

describe('two servers on one partner key', () => {
  it("live on 429s today, each at WPP_SYNC_RATE, twice the key's rate between them", async () => {
    const today = await twoServers({ floor: TODAY_RATE, ceiling: TODAY_RATE }, false);
    expect(today.limitedShare).toBeGreaterThan(0.3);
  }, 20_000);

  it("settle near the key's rate with few 429s when each learns from them, and share it", async () => {
    const adaptive = await twoServers({ floor: 1, ceiling: TODAY_RATE }, true);
    // Most 429s are the first moment's (both start at the ceiling); once settled, a few per AIMD cycle.
    expect(adaptive.limitedShare).toBeLessThan(0.12);
    expect(adaptive.settledLimitedShare).toBeLessThan(0.05);
    expect(adaptive.settledOkPerSecond).toBeGreaterThan(KEY_RATE * 0.6);
    // The sandbox enforces the key's rate (with a burst of one second's worth); the pacers keep under it.
    expect(adaptive.settledOkPerSecond).toBeLessThanOrEqual(KEY_RATE * 1.25);
    expect(Math.min(...adaptive.okPerServer)).toBeGreaterThan(Math.max(...adaptive.okPerServer) / 4);
  }, 20_000);
});
