/**
 * Runtime setting overrides and the audit of every settings change (migrations/008): the SQL of
 * the admin Settings page, prepared once per database. Values are JSON; the meaning of each
 * name is core/plugin-settings.ts's.
 */
import type { Db } from './open.js';

export interface SettingOverride {
  value: unknown;
  updatedAt: number;
  updatedBy: string;
}

export interface SettingsChange {
  id: number;
  at: number;
  actor: string;
  /** auto_protect, notify_url, limits:<scope>:<subject>, plan:<name>. */
  what: string;
  /** The whole thing before and after, as JSON values; null: it did not exist (or, for notify_url, was off). */
  before: unknown;
  after: unknown;
}

interface ChangeRow {
  id: number;
  at: number;
  actor: string;
  what: string;
  before: string;
  after: string;
}

// undefined is not JSON: a thing that did not exist is stored as null.
const toJson = (value: unknown): string => JSON.stringify(value ?? null);

const toChange = (row: ChangeRow): SettingsChange => ({
  id: row.id,
  at: row.at,
  actor: row.actor,
  what: row.what,
  before: JSON.parse(row.before) as unknown,
  after: JSON.parse(row.after) as unknown,
});

export function createSettingsRepo(db: Db, now: () => number = Date.now) {
  const s = {
    override: db.prepare<[string], { value: string; updated_at: number; updated_by: string }>(
      'SELECT value, updated_at, updated_by FROM setting_overrides WHERE name = ?',
    ),
    setOverride: db.prepare(
      `INSERT INTO setting_overrides (name, value, updated_at, updated_by) VALUES (@name, @value, @at, @actor)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
    ),
    removeOverride: db.prepare('DELETE FROM setting_overrides WHERE name = ?'),
    record: db.prepare('INSERT INTO settings_changes (at, actor, what, before, after) VALUES (@at, @actor, @what, @before, @after)'),
    changes: db.prepare<[number], ChangeRow>('SELECT * FROM settings_changes ORDER BY at DESC, id DESC LIMIT ?'),
    changesOf: db.prepare<[string, number], ChangeRow>('SELECT * FROM settings_changes WHERE what = ? ORDER BY at DESC, id DESC LIMIT ?'),
  };

  return {
    /** The override of a setting, or null when the environment's value applies. */
    getOverride(name: string): SettingOverride | null {
      const row = s.override.get(name);
      return row ? { value: JSON.parse(row.value) as unknown, updatedAt: row.updated_at, updatedBy: row.updated_by } : null;
    },
    setOverride: (name: string, value: unknown, actor: string) => void s.setOverride.run({ name, value: toJson(value), at: now(), actor }),
    /** Back to the environment's value; false when there was no override. */
    removeOverride: (name: string): boolean => s.removeOverride.run(name).changes > 0,
    /** One audit row; call it inside the change's own writeTransaction. */
    recordChange: (actor: string, what: string, before: unknown, after: unknown) =>
      void s.record.run({ at: now(), actor, what, before: toJson(before), after: toJson(after) }),
    /** The newest changes first (default 100), optionally of one thing only. */
    listChanges(options: { limit?: number; what?: string } = {}): SettingsChange[] {
      const limit = options.limit ?? 100;
      return (options.what === undefined ? s.changes.all(limit) : s.changesOf.all(options.what, limit)).map(toChange);
    },
    /**
     * Runs `fn` in one IMMEDIATE transaction on this database: the write lock is taken before
     * anything is read, so a read-merge-write by two admins at once cannot lose either change.
     * Nested in another transaction, it joins that one (a savepoint).
     */
    writeTransaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
  };
}

export type SettingsRepo = ReturnType<typeof createSettingsRepo>;
