/**
 * `wpp doctor`'s provider probe takes its token from the server's request budget (docs/fleet.md,
 * "One budget per server"): run beside a busy `wpp serve` it adds no unpaced call to the key,
 * and it honours a `Retry-After` the server met.
 */
import { describe, expect, it } from 'vitest';
import { checkProvider } from '../../src/doctor/checks.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { createPacerBucketRepo } from '../../src/db/pacer-bucket.repo.js';
import { startTestPlugin, testEnv } from '../helpers/plugin.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { removeTempDir } from '../helpers/temp.js';

const MACHINE = { hostname: 'test-host', primaryIp: undefined };

describe("wpp doctor's provider probe", () => {
  it("takes an urgent token from the data folder's bucket, waits out a Retry-After the server met, and says what the budget allows", async () => {
    const sandbox = await startTestSandbox({ certDelaySeconds: 0 });
    const plugin = await startTestPlugin(sandbox, { env: { WPP_SYNC_RATE: '2' } });
    // Its own calls (the server's registration) done first: the bucket moves for the probe alone.
    await plugin.idle();
    const config = loadConfig(testEnv(plugin.dataDir, sandbox, { WPP_SYNC_RATE: '2' }), MACHINE);
    const db = openDatabase(config.databaseFile);
    try {
      const bucket = createPacerBucketRepo(db);
      const store = (tokens: number, blockedUntil: number) =>
        bucket.update(() => ({
          state: { rate: 2, tokens, refilledAt: Math.max(Date.now(), blockedUntil), blockedUntil, decreasedAt: 0 },
          result: undefined,
        }));
      // Two tokens in the bucket: the probe spends one of them.
      store(2, 0);
      const first = await checkProvider(config, { env: {} }, AbortSignal.timeout(5000));
      expect(first.status).toBe('ok');
      expect(bucket.get()!.tokens).toBeLessThan(1.5);
      // Its line says what the budget allows and why, for the operator.
      expect(first.detail).toContain("; the request budget allows 2 requests a second (learned from the provider's answers)");

      // The server met a 429 whose Retry-After runs another 1.2 s: the probe sends nothing before then.
      const startedAt = Date.now();
      store(0, startedAt + 1200);
      const second = await checkProvider(config, { env: {} }, AbortSignal.timeout(5000));
      expect(second.status).toBe('ok');
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1150);

      // While `wpp serve` follows the fleet budget, the line names the share and when its lease runs out.
      const until = Date.now() + 60_000;
      bucket.setLease({ rate: 7.5, until }, Date.now());
      const leased = await checkProvider(config, { env: {} }, AbortSignal.timeout(5000));
      expect(leased.detail).toContain(
        `; the request budget allows 7.5 requests a second (this server's share of the key from the fleet database, leased until ${new Date(until).toISOString()})`,
      );
    } finally {
      db.close();
      await plugin.close();
      await sandbox.close();
      removeTempDir(plugin.dataDir);
      removeTempDir(sandbox.dataDir);
    }
  }, 30_000);

  it('probes unpaced where the budget is off (WPP_SYNC_RATE=0) or there is no database yet', async () => {
    const sandbox = await startTestSandbox({ certDelaySeconds: 0 });
    const plugin = await startTestPlugin(sandbox, { env: { WPP_SYNC_RATE: '0' } });
    try {
      const config = loadConfig(testEnv(plugin.dataDir, sandbox, { WPP_SYNC_RATE: '0' }), MACHINE);
      expect((await checkProvider(config, { env: {} }, AbortSignal.timeout(5000))).status).toBe('ok');
      const db = openDatabase(config.databaseFile);
      expect(createPacerBucketRepo(db).get()).toBeUndefined();
      db.close();
      const elsewhere = loadConfig(testEnv(`${plugin.dataDir}/none`, sandbox, { WPP_SYNC_RATE: '2' }), MACHINE);
      expect((await checkProvider(elsewhere, { env: {} }, AbortSignal.timeout(5000))).status).toBe('ok');
    } finally {
      await plugin.close();
      await sandbox.close();
      removeTempDir(plugin.dataDir);
      removeTempDir(sandbox.dataDir);
    }
  }, 30_000);
});
