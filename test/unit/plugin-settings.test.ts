/**
 * Runtime settings on a real SQLite file: an admin's override beats the environment, every
 * change is recorded with who made it and what it was before and after, in the change's
 * transaction, and a refused or empty change leaves no trace.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyLimitsChange, limitsWhat } from '../../src/core/limits-change.js';
import { changePlan, createPluginSettings } from '../../src/core/plugin-settings.js';
import { createAccountsRepo } from '../../src/db/accounts.repo.js';
import { migrate } from '../../src/db/migrate.js';
import { openDatabase, type Db } from '../../src/db/open.js';
import { createSettingsRepo, type SettingsRepo } from '../../src/db/settings.repo.js';
import { createStatisticsRepo } from '../../src/db/statistics.repo.js';
import { isAppError } from '../../src/errors.js';
import { paths } from '../../src/paths.js';
import { withTempDir } from '../helpers/temp.js';

const AT = 1_800_000_000_000;
const ENV = { autoProtect: true, notifyUrl: 'https://hooks.example/wpp' };

async function withSettings(fn: (context: { db: Db; repo: SettingsRepo }) => void) {
  await withTempDir((dir) => {
    const db = openDatabase(join(dir, 'plugin.sqlite'));
    try {
      migrate(db, paths.migrations);
      fn({ db, repo: createSettingsRepo(db, () => AT) });
    } finally {
      db.close();
    }
  });
}

const tableCounts = (db: Db) => ({
  overrides: (db.prepare('SELECT COUNT(*) AS n FROM setting_overrides').get() as { n: number }).n,
  changes: (db.prepare('SELECT COUNT(*) AS n FROM settings_changes').get() as { n: number }).n,
});

describe('runtime settings: override ?? environment', () => {
  it("uses the environment's values until an admin overrides them, in every instance on the database", () =>
    withSettings(({ repo }) => {
      const settings = createPluginSettings(repo, ENV);
      expect(settings.current()).toEqual({ autoProtect: true, notifyUrl: 'https://hooks.example/wpp' });
      expect(createPluginSettings(repo, { autoProtect: false }).current()).toEqual({ autoProtect: false, notifyUrl: null });

      settings.changeSetting('auto_protect', false, 'admin:anna');
      // Another process on the same data folder (a new instance, same database) sees it at its next read.
      expect(createPluginSettings(repo, ENV).autoProtect()).toBe(false);
      expect(settings.overrides().auto_protect).toEqual({ value: false, updatedAt: AT, updatedBy: 'admin:anna' });
      expect(settings.overrides().notify_url).toBeNull();
    }));

  it('records each change with its actor, before and after; turns notifications off over the environment, and back', () =>
    withSettings(({ repo }) => {
      const settings = createPluginSettings(repo, ENV);
      expect(settings.changeSetting('notify_url', ' https://other.example/in/ ', 'admin:anna')).toEqual({
        name: 'notify_url',
        before: 'https://hooks.example/wpp',
        after: 'https://other.example/in',
        changed: true,
      });
      settings.changeSetting('notify_url', null, 'admin:ben');
      expect(settings.notifyUrl()).toBeNull();
      expect(settings.resetSetting('notify_url', 'admin:carl')).toMatchObject({ after: 'https://hooks.example/wpp', changed: true });
      expect(settings.overrides().notify_url).toBeNull();
      expect(repo.listChanges().map(({ actor, what, before, after, at }) => ({ actor, what, before, after, at }))).toEqual([
        { actor: 'admin:carl', what: 'notify_url', before: null, after: 'https://hooks.example/wpp', at: AT },
        { actor: 'admin:ben', what: 'notify_url', before: 'https://other.example/in', after: null, at: AT },
        { actor: 'admin:anna', what: 'notify_url', before: 'https://hooks.example/wpp', after: 'https://other.example/in', at: AT },
      ]);
      expect(repo.listChanges({ what: 'auto_protect' })).toEqual([]);
    }));

  it('refuses a URL that is not absolute http(s), a value of the wrong type and a missing actor; nothing is stored', () =>
    withSettings(({ db, repo }) => {
      const settings = createPluginSettings(repo, ENV);
      const refused: [Parameters<typeof settings.changeSetting>[0], unknown, string][] = [
        ['notify_url', '/relative/path', 'admin:anna'],
        ['notify_url', 'ftp://files.example/x', 'admin:anna'],
        ['notify_url', 'hooks.example/wpp', 'admin:anna'],
        ['notify_url', '', 'admin:anna'],
        ['auto_protect', 'false', 'admin:anna'],
        ['auto_protect', false, ' '],
      ];
      for (const [name, value, actor] of refused) {
        let caught: unknown;
        try {
          settings.changeSetting(name, value, actor);
        } catch (error) {
          caught = error;
        }
        expect(isAppError(caught, 'VALIDATION_FAILED'), `${name} ${JSON.stringify(value)}`).toBe(true);
      }
      expect(tableCounts(db)).toEqual({ overrides: 0, changes: 0 });
      expect(settings.current()).toEqual({ autoProtect: true, notifyUrl: 'https://hooks.example/wpp' });
    }));

  it('stores and records nothing when the effective value stays', () =>
    withSettings(({ db, repo }) => {
      const settings = createPluginSettings(repo, ENV);
      expect(settings.changeSetting('auto_protect', true, 'admin:anna').changed).toBe(false);
      expect(settings.changeSetting('notify_url', 'https://hooks.example/wpp/', 'admin:anna').changed).toBe(false);
      expect(settings.resetSetting('auto_protect', 'admin:anna').changed).toBe(false);
      expect(tableCounts(db)).toEqual({ overrides: 0, changes: 0 });
      settings.changeSetting('auto_protect', false, 'admin:anna');
      settings.changeSetting('auto_protect', false, 'admin:ben');
      expect(tableCounts(db)).toEqual({ overrides: 1, changes: 1 });
      expect(settings.overrides().auto_protect?.updatedBy).toBe('admin:anna');
    }));
});

describe('limits and plans changes are recorded too', () => {
  it('a limits change merges into its row and lands in settings_changes with the actor; the same change again records nothing', () =>
    withSettings(({ db, repo }) => {
      const stats = createStatisticsRepo(db, () => AT);
      stats.setLimits('account', 'alice', { websiteHits: 500 });
      const deps = { stats, audit: repo };
      const applied = applyLimitsChange(deps, { scope: 'account', subject: 'alice', changes: { accountHits: 900 } }, 'admin:anna');
      expect(applied).toMatchObject({ before: { websiteHits: 500, accountHits: null }, recorded: true });
      expect(stats.limitLayer('account', 'alice')).toMatchObject({ websiteHits: 500, accountHits: 900 });
      expect(repo.listChanges()).toEqual([
        expect.objectContaining({ actor: 'admin:anna', what: 'limits:account:alice', before: applied.before, after: applied.after }),
      ]);
      expect(applyLimitsChange(deps, { scope: 'account', subject: 'alice', changes: { accountHits: 900 } }, 'admin:ben').recorded).toBe(
        false,
      );
      applyLimitsChange(deps, { scope: 'global', subject: '', changes: { period: 'daily' } }, 'cli:root');
      expect(repo.listChanges({ what: limitsWhat('global', '') })).toEqual([
        expect.objectContaining({ actor: 'cli:root', before: null, after: expect.objectContaining({ period: 'daily' }) }),
      ]);
      expect(tableCounts(db).changes).toBe(2);
    }));

  it('a plan change keeps what is not given, starts a new plan from the built-in one, and is recorded', () =>
    withSettings(({ db, repo }) => {
      const accounts = createAccountsRepo(db, () => AT);
      const deps = { accounts, audit: repo };
      const created = changePlan(deps, { name: 'gold', subdomains: ['www', 'shop'] }, 'admin:anna');
      expect(created).toEqual({
        before: null,
        after: { name: 'gold', settings: {}, subdomains: ['www', 'shop'], monitorDays: 0 },
        recorded: true,
      });
      const settings = { rules: { humans: 'captcha' as const } };
      expect(changePlan(deps, { name: 'gold', settings }, 'admin:ben').after).toEqual({
        name: 'gold',
        settings,
        subdomains: ['www', 'shop'],
        monitorDays: 0,
      });
      expect(changePlan(deps, { name: 'gold', settings }, 'admin:carl').recorded).toBe(false);
      expect(repo.listChanges({ what: 'plan:gold' }).map((change) => change.actor)).toEqual(['admin:ben', 'admin:anna']);
    }));
});
