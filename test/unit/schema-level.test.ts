/**
 * The migration a database file records, as `wpp install` (from a release) and `wpp rollback`
 * read it before deciding whether to copy, migrate or refuse: read-only, no file no level.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { newestMigration, schemaLevel } from '../../src/db/migrate.js';
import { openMigratedDatabase } from '../../src/db/open.js';
import { paths } from '../../src/paths.js';
import { withTempDir } from '../helpers/temp.js';

describe('schemaLevel', () => {
  it('is undefined where there is no database, and creates none', () =>
    withTempDir((dir) => {
      const file = join(dir, 'plugin.sqlite');
      expect(schemaLevel(file)).toBeUndefined();
      expect(existsSync(file)).toBe(false);
    }));

  it('is 0 for an SQLite file migrations never ran on, and for one with no migration recorded', () =>
    withTempDir((dir) => {
      const file = join(dir, 'other.sqlite');
      const db = new Database(file);
      db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY)');
      expect(schemaLevel(file)).toBe(0);
      db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
      expect(schemaLevel(file)).toBe(0);
      db.close();
    }));

  it("is the newest migration a migrated database records, this code's newest", () =>
    withTempDir((dir) => {
      const file = join(dir, 'plugin.sqlite');
      openMigratedDatabase(file, paths.migrations, { notice: () => undefined }).close();
      expect(schemaLevel(file)).toBe(newestMigration(paths.migrations));
      expect(newestMigration(paths.migrations)).toBeGreaterThan(10);
    }));

  it('reads a database a newer wpp migrated further, without changing it', () =>
    withTempDir((dir) => {
      const file = join(dir, 'plugin.sqlite');
      openMigratedDatabase(file, paths.migrations, { notice: () => undefined }).close();
      const db = new Database(file);
      db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 'x')").run();
      db.close();
      const before = readFileSync(file);
      expect(schemaLevel(file)).toBe(999);
      expect(readFileSync(file).equals(before)).toBe(true);
    }));

  it('an unreadable file is an error, not a level', () =>
    withTempDir((dir) => {
      const file = join(dir, 'plugin.sqlite');
      writeFileSync(file, 'not a database, but long enough to have a header of sorts: '.repeat(10));
      expect(() => schemaLevel(file)).toThrow();
    }));
});
