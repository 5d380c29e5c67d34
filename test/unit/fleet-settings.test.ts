/**
 * Fleet settings' rules on a real SQLite file (core/fleet-settings.ts): a change is stored as
 * only what was given and read back into the same local change; changes apply in version order,
 * each once, recorded as `fleet:<who>@<server>`; a row another server wrote that cannot be read
 * is passed over (and told), not applied and not retried for ever.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  applyFleetSettingsChanges,
  appliedFleetVersion,
  fleetActor,
  fleetChangeOf,
  parseFleetSettingsChange,
  type FleetSettingsChange,
  type FleetSettingsStore,
} from '../../src/core/fleet-settings.js';
import { createAccountsRepo } from '../../src/db/accounts.repo.js';
import { migrate } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';
import { createSettingsRepo } from '../../src/db/settings.repo.js';
import { createStatisticsRepo } from '../../src/db/statistics.repo.js';
import { paths } from '../../src/paths.js';
import { withTempDir } from '../helpers/temp.js';

async function withStore(fn: (store: FleetSettingsStore) => void) {
  await withTempDir((dir) => {
    const db = openDatabase(join(dir, 'plugin.sqlite'));
    try {
      migrate(db, paths.migrations);
      fn({ stats: createStatisticsRepo(db), accounts: createAccountsRepo(db), audit: createSettingsRepo(db) });
    } finally {
      db.close();
    }
  });
}

const row = (version: number, what: string, change: unknown, actor = 'admin:alice', serverName = 'web3'): FleetSettingsChange => ({
  version,
  what,
  change,
  actor,
  serverId: 'srv-3',
  serverName,
  madeAt: 0,
});

describe('a fleet change as stored', () => {
  it('keeps only what was given and reads back into the same local change', () => {
    const limits = {
      kind: 'limits' as const,
      change: { scope: 'plan' as const, subject: 'Gold', changes: { websiteHits: 5000, exempt: null } },
    };
    const stored = fleetChangeOf(limits);
    expect(stored).toEqual({ what: 'limits:plan:Gold', change: { websiteHits: 5000, exempt: null } });
    expect(parseFleetSettingsChange(JSON.parse(JSON.stringify(stored)))).toEqual(limits);

    const plan = { kind: 'plan' as const, change: { name: 'gold', subdomains: ['www', 'shop'], settings: undefined, monitorDays: 3 } };
    expect(fleetChangeOf(plan)).toEqual({ what: 'plan:gold', change: { subdomains: ['www', 'shop'], monitorDays: 3 } });
    expect(parseFleetSettingsChange(fleetChangeOf(plan))).toEqual({
      kind: 'plan',
      change: { name: 'gold', subdomains: ['www', 'shop'], monitorDays: 3 },
    });
  });

  it('refuses what no server of this version would have written', () => {
    expect(parseFleetSettingsChange({ what: 'limits:planet:x', change: {} })).toBeNull();
    expect(parseFleetSettingsChange({ what: 'limits:global:x', change: {} })).toBeNull();
    expect(parseFleetSettingsChange({ what: 'limits:plan:', change: {} })).toBeNull();
    expect(parseFleetSettingsChange({ what: 'limits:global:', change: { websiteHits: -1 } })).toBeNull();
    expect(parseFleetSettingsChange({ what: 'plan:gold', change: { subdomains: ['bad_label!'] } })).toBeNull();
    expect(parseFleetSettingsChange({ what: 'notify_url', change: {} })).toBeNull();
  });

  it('names who made it and where, within what settings_changes keeps', () => {
    expect(fleetActor({ actor: 'admin:alice', serverName: 'web3' })).toBe('fleet:admin:alice@web3');
    expect(fleetActor({ actor: 'cli:root', serverName: 'x'.repeat(300) })).toHaveLength(200);
  });
});

describe('applying fleet changes', () => {
  it('applies in version order, each once, recorded with who and where; only the values given change', () =>
    withStore((store) => {
      store.stats.setLimits('global', '', { websiteHits: 100, accountHits: 900 });
      const rows = [
        row(1, 'limits:global:', { websiteHits: 5000 }),
        row(2, 'plan:gold', { monitorDays: 2 }, 'cli:root', 'web1'),
        row(3, 'limits:global:', { websiteHits: 6000 }),
      ];
      expect(applyFleetSettingsChanges(store, rows)).toBe(3);
      expect(store.stats.limitLayer('global', '')).toMatchObject({ websiteHits: 6000, accountHits: 900 });
      expect(store.accounts.getPlan('gold')).toMatchObject({ monitorDays: 2, subdomains: ['www'] });
      expect(store.audit.listChanges().map((change) => [change.actor, change.what])).toEqual([
        ['fleet:admin:alice@web3', 'limits:global:'],
        ['fleet:cli:root@web1', 'plan:gold'],
        ['fleet:admin:alice@web3', 'limits:global:'],
      ]);
      expect(appliedFleetVersion(store)).toBe(3);

      // Read again (another process of the data folder, or a restart): nothing twice.
      expect(applyFleetSettingsChanges(store, rows)).toBe(0);
      expect(store.audit.listChanges()).toHaveLength(3);
    }));

  it('passes over a row it cannot read, tells of it, and goes on with the next', () =>
    withStore((store) => {
      const unreadable: number[] = [];
      const applied = applyFleetSettingsChanges(
        store,
        [row(1, 'limits:global:', { websiteHits: 'many' }), row(2, 'limits:global:', { websiteHits: 10 })],
        (skipped) => unreadable.push(skipped.version),
      );
      expect(applied).toBe(1);
      expect(unreadable).toEqual([1]);
      expect(store.stats.limitLayer('global', '')?.websiteHits).toBe(10);
      expect(appliedFleetVersion(store)).toBe(2);
    }));
});
