/**
 * The last known settings of each website (migration 014): what the provider answered last,
 * when, and whether a read since then failed. The view's shape is core's (SettingsView); this
 * only stores and returns it.
 */
import type { SettingsView } from '../core/website-settings.js';
import type { Db } from './open.js';

export interface SettingsSnapshot {
  view: SettingsView;
  readAt: number;
  /** The last read that failed after `readAt`, and why; null: none has. */
  failedAt: number | null;
  failure: string | null;
}

interface SnapshotRow {
  view: string;
  read_at: number;
  failed_at: number | null;
  failure: string | null;
}

export function createSettingsSnapshotsRepo(db: Db) {
  const statements = {
    get: db.prepare<[string], SnapshotRow>('SELECT view, read_at, failed_at, failure FROM settings_snapshots WHERE domain = ?'),
    // An older answer landing after a newer one (two reads in flight) does not replace it.
    saveRead: db.prepare<{ domain: string; view: string; at: number }>(
      `INSERT INTO settings_snapshots (domain, view, read_at) VALUES (@domain, @view, @at)
       ON CONFLICT (domain) DO UPDATE SET view = excluded.view, read_at = excluded.read_at, failed_at = NULL, failure = NULL
       WHERE excluded.read_at >= settings_snapshots.read_at`,
    ),
    saveFailure: db.prepare<{ domain: string; at: number; failure: string }>(
      'UPDATE settings_snapshots SET failed_at = @at, failure = @failure WHERE domain = @domain AND read_at <= @at',
    ),
  };
  return {
    get(domain: string): SettingsSnapshot | null {
      const row = statements.get.get(domain);
      if (!row) return null;
      return { view: JSON.parse(row.view) as SettingsView, readAt: row.read_at, failedAt: row.failed_at, failure: row.failure };
    },
    saveRead(domain: string, view: SettingsView, at: number): void {
      statements.saveRead.run({ domain, view: JSON.stringify(view), at });
    },
    /** A read that failed: kept only where settings were read before (there is nothing to mark otherwise). */
    saveFailure(domain: string, at: number, failure: string): void {
      statements.saveFailure.run({ domain, at, failure });
    },
  };
}

export type SettingsSnapshotsRepo = ReturnType<typeof createSettingsSnapshotsRepo>;
