/**
 * The domain page's settings reader (core/settings-snapshot.ts) on a real SQLite file: stored
 * settings come back at once whatever the provider does, the read behind the page stores
 * fresher ones or notes its failure, page views share one read, and a website never read waits
 * only a little.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSettingsReader } from '../../src/core/settings-snapshot.js';
import { settingsViewOf } from '../../src/core/website-settings.js';
import { migrate } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';
import { createSettingsSnapshotsRepo, type SettingsSnapshotsRepo } from '../../src/db/settings-snapshots.repo.js';
import { paths } from '../../src/paths.js';
import type { ProviderWebsite } from '../../src/provider/index.js';
import { withTempDir } from '../helpers/temp.js';

const DOMAIN = 'snap.example';

/** A website as the provider answers it, with `humans` set to `policy`. */
const remote = (policy: string) =>
  ({
    domain: DOMAIN,
    settings: { rules: { humans: policy }, rulesets: {}, loadbalancer: { certs_issuer: 'acme' } },
    subdomain: [],
    ip: ['192.0.2.5'],
    ipv6: [],
    certificate_status: 'issued',
  }) as unknown as ProviderWebsite;

/** A provider whose answers the test gives, one at a time: each lookup waits for the next `answer` or `fail`. */
function heldProvider() {
  const waiting: { resolve: (w: ProviderWebsite) => void; reject: (e: Error) => void }[] = [];
  return {
    calls: 0,
    lookupWebsite(this: { calls: number }) {
      this.calls++;
      return new Promise<ProviderWebsite>((resolve, reject) => waiting.push({ resolve, reject }));
    },
    answer: (policy: string) => waiting.shift()?.resolve(remote(policy)),
    fail: () => waiting.shift()?.reject(new Error('connection refused')),
  };
}

async function withSnapshots(fn: (snapshots: SettingsSnapshotsRepo) => Promise<void>) {
  await withTempDir(async (dir) => {
    const db = openDatabase(join(dir, 'plugin.sqlite'));
    try {
      migrate(db, paths.migrations);
      await fn(createSettingsSnapshotsRepo(db));
    } finally {
      db.close();
    }
  });
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('settings reader', () => {
  it('returns the stored settings at once while the provider holds its answer, and stores the answer for the next view', async () => {
    await withSnapshots(async (snapshots) => {
      let now = 1_000;
      snapshots.saveRead(DOMAIN, settingsViewOf(remote('deny')), now);
      const provider = heldProvider();
      const reader = createSettingsReader({ provider, snapshots, now: () => now });
      now = 2_000;
      const shown = await reader.known(DOMAIN);
      expect(shown).toMatchObject({ view: { rules: { humans: 'deny' } }, readAt: 1_000, failedAt: null });
      // A second view while the first read is still out shares it.
      await reader.known(DOMAIN);
      expect(provider.calls).toBe(1);
      provider.answer('captcha');
      await settle();
      expect(snapshots.get(DOMAIN)).toMatchObject({ view: { rules: { humans: 'captcha' } }, readAt: 2_000, failedAt: null });
    });
  });

  it('notes a failed read behind the page with the stored settings, and forgets it after a good one', async () => {
    await withSnapshots(async (snapshots) => {
      let now = 1_000;
      const provider = heldProvider();
      const reader = createSettingsReader({ provider, snapshots, now: () => now });
      const first = reader.known(DOMAIN);
      provider.answer('grant');
      expect(await first).toMatchObject({ view: { rules: { humans: 'grant' } }, readAt: 1_000 });
      now = 5_000;
      expect(await reader.known(DOMAIN)).toMatchObject({ readAt: 1_000, failedAt: null });
      provider.fail();
      await settle();
      expect(snapshots.get(DOMAIN)).toMatchObject({ view: { rules: { humans: 'grant' } }, readAt: 1_000, failedAt: 5_000 });
      now = 9_000;
      expect(await reader.known(DOMAIN)).toMatchObject({ readAt: 1_000, failedAt: 5_000 });
      provider.answer('deny');
      await settle();
      expect(snapshots.get(DOMAIN)).toMatchObject({ view: { rules: { humans: 'deny' } }, readAt: 9_000, failedAt: null });
    });
  });

  it('lets a page of a website never read wait only a little: then it says the settings are being read, or why not', async () => {
    await withSnapshots(async (snapshots) => {
      const provider = heldProvider();
      const reader = createSettingsReader({ provider, snapshots, now: () => 1_000, firstReadWaitMs: 10 });
      expect(await reader.known(DOMAIN)).toEqual({ view: null, reason: 'pending' });
      provider.fail();
      await settle();
      const failing = reader.known(DOMAIN);
      provider.fail();
      expect(await failing).toMatchObject({ view: null, reason: 'unreachable', failure: expect.any(String) });
      expect(snapshots.get(DOMAIN)).toBeNull();
    });
  });
});
