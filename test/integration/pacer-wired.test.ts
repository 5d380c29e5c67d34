/**
 * The pacer wired in (docs/fleet.md, "One budget per server"): a running plugin's provider
 * calls take their tokens from the data folder's shared bucket, within WPP_SYNC_RATE.
 */
import { describe, expect, it } from 'vitest';
import { createPacerBucketRepo } from '../../src/db/pacer-bucket.repo.js';
import { protectedWebsite, withPlugin } from '../helpers/plugin.js';

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
});
