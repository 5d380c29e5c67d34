/**
 * `wpp doctor`'s look at protection per hosting package (core/package-protection.ts): which of
 * the packages the panel named include web protection, and whether an account whose package
 * does not still has websites at the provider. During the grace period that is expected (they
 * are paused, and removed when it ends); after it, the release job has not run: `wpp serve` is
 * down, or its job is dead (the jobs page says why).
 */
import Database from 'better-sqlite3';
import type { Config } from '../config.js';
import { createPackagesRepo } from '../db/packages.repo.js';
import { DAY_MS } from '../time.js';
import { ok, SkipCheck, warn, type CheckResult } from './doctor.js';

export function checkPackages(config: Config, now: () => number, graceDays: (db: Database.Database) => number): CheckResult {
  let db: Database.Database;
  try {
    db = new Database(config.databaseFile, { readonly: true, fileMustExist: true });
  } catch {
    throw new SkipCheck('no database yet');
  }
  try {
    db.pragma('busy_timeout = 1000');
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'packages'").get();
    if (!hasTable) throw new SkipCheck('the database predates protection per package: restart `wpp serve` to migrate it');
    const repo = createPackagesRepo(db);
    const packages = repo.listPackages();
    const without = packages.filter((p) => !p.protection).map((p) => p.name);
    const summary =
      packages.length === 0
        ? 'the panel has named no package yet (every account counts as including web protection)'
        : `${packages.length - without.length} of ${packages.length} packages include web protection${without.length ? `; not: ${without.join(', ')}` : ''}`;
    const graceMs = graceDays(db) * DAY_MS;
    const unreleased = repo.unreleasedAccounts();
    if (unreleased.length === 0) return ok(`${summary}; no account without it has websites at the provider`);
    const lines = unreleased.slice(0, 5).map((a) => {
      const overdue = a.removedAt !== null && a.removedAt + graceMs <= now();
      return `${a.account} (package ${a.plan ?? 'none'}): ${a.websites} website${a.websites === 1 ? '' : 's'} at the provider${overdue ? ', grace period over: is `wpp serve` running, is its package.release job dead?' : ', paused until the grace period ends'}`;
    });
    const more = unreleased.length > 5 ? ` (+${unreleased.length - 5} more)` : '';
    return warn(`${summary}; accounts without web protection that still have protected websites: ${lines.join('; ')}${more}`);
  } finally {
    db.close();
  }
}
