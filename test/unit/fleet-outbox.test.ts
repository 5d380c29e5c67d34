/**
 * The fleet view's outbox in SQLite (migration 028, src/db/fleet-outbox.repo.ts) and one
 * publishing round (src/core/fleet-view.ts) against a sink that records what it is sent: a
 * real database file. Coalesced by website, so an outage of any length leaves at most one row
 * per website; a change made while a round is sending is not forgotten; the enforcement log is
 * sent from where it was left; nothing is queued while the server is not in a fleet.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publishRound, type FleetSink, type PublishedAction, type ServerHealth } from '../../src/core/fleet-view.js';
import { createAccountsRepo } from '../../src/db/accounts.repo.js';
import { createFleetOutboxRepo } from '../../src/db/fleet-outbox.repo.js';
import { migrate } from '../../src/db/migrate.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { paths } from '../../src/paths.js';
import { withTempDir } from '../helpers/temp.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');

async function withDb(fn: (db: Db) => void | Promise<void>) {
  await withTempDir(async (dir) => {
    const db = openDatabase(join(dir, 'plugin.sqlite'));
    try {
      migrate(db, paths.migrations);
      await fn(db);
    } finally {
      db.close();
    }
  });
}

const website = (domain: string) => ({
  domain,
  account: 'alice',
  subdomains: [],
  originIps: ['203.0.113.10'],
  state: 'active' as const,
  desiredStatus: 'online' as const,
  pausedBy: null,
  providerStatus: 'online',
  providerCheckedAt: null,
  callbackTokenHash: `hash-${domain}`,
});

function seeded(db: Db) {
  const accounts = createAccountsRepo(db, () => NOW);
  accounts.saveAccount({
    account: 'alice',
    email: null,
    plan: null,
    providerUserId: 'alice@panel.example',
    providerApiKey: null,
    state: 'active',
  });
  return accounts;
}

function recordingSink() {
  const sent = { websites: [] as string[], gone: [] as string[], actions: [] as PublishedAction[], health: [] as ServerHealth[] };
  const sink: FleetSink = {
    websites: async (_id, rows) => {
      for (const row of rows) (row.website ? sent.websites : sent.gone).push(row.domain);
    },
    actions: async (_id, actions) => void sent.actions.push(...actions),
    health: async (_id, health) => void sent.health.push(health),
  };
  return { sent, sink };
}

const action = (db: Db, key: string, domain: string) =>
  db
    .prepare(
      `INSERT INTO enforcement_actions (at, account, domain, action, actor, reason, usage, limit_value, period_start, period_end, action_key)
       VALUES (?, 'alice', ?, 'pause', 'enforcement', 'website_limit', 150, 100, 0, 1, ?)`,
    )
    .run(NOW, domain, key);

describe('the fleet outbox', () => {
  it('queues nothing until the server publishes, then every website once', async () => {
    await withDb((db) => {
      const accounts = seeded(db);
      const outbox = createFleetOutboxRepo(db, () => NOW);
      const triggers = () =>
        db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'fleet_outbox_%'").pluck().get();
      accounts.saveWebsite(website('a.example'));
      expect(outbox.pendingCount()).toBe(0);
      // Outside a fleet no trigger exists: not even one that would not fire (it would cost every quota update).
      expect(triggers()).toBe(0);
      expect(outbox.startPublishing()).toBe(true);
      expect(triggers()).toBe(5);
      expect(outbox.pendingCount()).toBe(1);
      expect(outbox.startPublishing()).toBe(false);
      accounts.saveWebsite(website('b.example'));
      expect(outbox.pendingCount()).toBe(2);
      outbox.stopPublishing();
      expect(triggers()).toBe(0);
      accounts.saveWebsite({ ...website('c.example') });
      expect(outbox.pendingCount()).toBe(0);
    });
  });

  it('keeps one row per website however often it changes: the bound is the number of websites', async () => {
    await withDb((db) => {
      const accounts = seeded(db);
      const outbox = createFleetOutboxRepo(db, () => NOW);
      outbox.startPublishing();
      for (let i = 0; i < 50; i++) accounts.saveWebsite(website(`site${i % 5}.example`));
      for (let i = 0; i < 200; i++) db.prepare('UPDATE website_quota SET usage = ? WHERE domain = ?').run(i, `site${i % 5}.example`);
      expect(outbox.pendingCount()).toBe(5);
      const pending = outbox.pendingWebsites(10);
      expect(pending.map((p) => p.domain).sort()).toEqual([
        'site0.example',
        'site1.example',
        'site2.example',
        'site3.example',
        'site4.example',
      ]);
      // The latest state is what is sent.
      expect(pending.find((p) => p.domain === 'site4.example')?.website).toMatchObject({
        account: 'alice',
        usage: 199,
        providerStatus: 'online',
      });
    });
  });

  it('does not forget a website changed while its state was being sent, and sends a deleted one as gone', async () => {
    await withDb(async (db) => {
      const accounts = seeded(db);
      const outbox = createFleetOutboxRepo(db, () => NOW);
      outbox.startPublishing();
      accounts.saveWebsite(website('a.example'));
      accounts.saveWebsite(website('b.example'));
      const { sent, sink } = recordingSink();
      const racing: FleetSink = {
        ...sink,
        // While the fleet database commits the batch, a.example changes on this server.
        websites: async (id, rows, at) => {
          await sink.websites(id, rows, at);
          db.prepare("UPDATE website_quota SET usage = 42 WHERE domain = 'a.example'").run();
        },
      };
      const first = await publishRound(outbox, racing, { serverId: 'srv-1', now: () => NOW });
      expect(first).toMatchObject({ websites: 2, left: 1 });
      expect(outbox.pendingWebsites(10).map((p) => [p.domain, p.website?.usage])).toEqual([['a.example', 42]]);

      db.prepare("DELETE FROM websites WHERE domain = 'b.example'").run();
      await publishRound(outbox, sink, { serverId: 'srv-1', now: () => NOW });
      expect(sent.gone).toEqual(['b.example']);
      expect(outbox.pendingCount()).toBe(0);
      expect(sent.health.at(-1)).toMatchObject({ websites: 1, outbox: 0, doctor: null });
    });
  });

  it('sends the enforcement log from where it was left, in batches, each action once', async () => {
    await withDb(async (db) => {
      seeded(db).saveWebsite(website('a.example'));
      const outbox = createFleetOutboxRepo(db, () => NOW);
      outbox.startPublishing();
      for (let i = 0; i < 7; i++) action(db, `pause-${i}`, 'a.example');
      const { sent, sink } = recordingSink();
      const round = await publishRound(outbox, sink, { serverId: 'srv-1', now: () => NOW, batchSize: 3, maxBatches: 2 });
      expect(round.actions).toBe(6);
      await publishRound(outbox, sink, { serverId: 'srv-1', now: () => NOW, batchSize: 3, maxBatches: 2 });
      action(db, 'pause-7', 'a.example');
      await publishRound(outbox, sink, { serverId: 'srv-1', now: () => NOW, batchSize: 3 });
      expect(sent.actions.map((a) => a.key)).toEqual([
        'pause-0',
        'pause-1',
        'pause-2',
        'pause-3',
        'pause-4',
        'pause-5',
        'pause-6',
        'pause-7',
      ]);
    });
  });

  it('keeps what the fleet database refused: a failed round forgets nothing', async () => {
    await withDb(async (db) => {
      seeded(db).saveWebsite(website('a.example'));
      const outbox = createFleetOutboxRepo(db, () => NOW);
      outbox.startPublishing();
      action(db, 'pause-0', 'a.example');
      const down: FleetSink = {
        websites: async () => Promise.reject(new Error('connect ECONNREFUSED')),
        actions: async () => Promise.reject(new Error('connect ECONNREFUSED')),
        health: async () => Promise.reject(new Error('connect ECONNREFUSED')),
      };
      await expect(publishRound(outbox, down, { serverId: 'srv-1', now: () => NOW })).rejects.toThrow('ECONNREFUSED');
      expect(outbox.pendingCount()).toBe(1);
      expect(outbox.actionsSentId()).toBe(0);
    });
  });

  it("keeps the last doctor run for the server's health", async () => {
    await withDb((db) => {
      const outbox = createFleetOutboxRepo(db, () => NOW);
      outbox.recordDoctor({ at: NOW, status: 'warn', checks: [{ name: 'disk', status: 'warn', detail: '9% free' }] });
      outbox.recordDoctor({ at: NOW + 1, status: 'ok', checks: [{ name: 'disk', status: 'ok', detail: '40% free' }] });
      expect(outbox.health().doctor).toEqual({ at: NOW + 1, status: 'ok', checks: [{ name: 'disk', status: 'ok', detail: '40% free' }] });
    });
  });
});
