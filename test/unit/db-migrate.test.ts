import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatabaseTooNewError, MigrationFileError, migrate } from '../../src/db/migrate.js';
import { openDatabase } from '../../src/db/open.js';
import { paths } from '../../src/paths.js';
import { withTempDir } from '../helpers/temp.js';

function writeMigrations(dir: string, files: Record<string, string>): string {
  const folder = join(dir, 'migrations');
  mkdirSync(folder, { recursive: true });
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(folder, name), sql);
  return folder;
}

const tables = (db: ReturnType<typeof openDatabase>) =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((row) => row.name);

describe('openDatabase', () => {
  it('opens a file with WAL, foreign keys and a busy timeout', () =>
    withTempDir((dir) => {
      const db = openDatabase(join(dir, 'nested', 'x.sqlite'));
      try {
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
        expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
        expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
      } finally {
        db.close();
      }
    }));
});

describe('migrate', () => {
  it('migrates an empty database, and a second run changes nothing', () =>
    withTempDir((dir) => {
      const folder = writeMigrations(dir, {
        '001_first.sql': 'CREATE TABLE a (id INTEGER PRIMARY KEY);',
        '002_second.sql': 'CREATE TABLE b (id INTEGER PRIMARY KEY); INSERT INTO a (id) VALUES (1);',
        'README.txt': 'not a migration',
      });
      const db = openDatabase(join(dir, 'db.sqlite'));
      try {
        const first = migrate(db, folder);
        expect(first.applied.map((m) => m.version)).toEqual([1, 2]);
        expect(first.version).toBe(2);
        const before = db.prepare('SELECT * FROM schema_migrations ORDER BY version').all();
        const second = migrate(db, folder);
        expect(second.applied).toEqual([]);
        expect(db.prepare('SELECT * FROM schema_migrations ORDER BY version').all()).toEqual(before);
        expect(db.prepare('SELECT COUNT(*) AS n FROM a').get()).toEqual({ n: 1 });
        expect(tables(db)).toEqual(['a', 'b', 'schema_migrations']);
      } finally {
        db.close();
      }
    }));

  it('applies only the new migrations when the code grows', () =>
    withTempDir((dir) => {
      const folder = writeMigrations(dir, { '001_first.sql': 'CREATE TABLE a (id INTEGER PRIMARY KEY);' });
      const db = openDatabase(join(dir, 'db.sqlite'));
      try {
        migrate(db, folder);
        writeFileSync(join(folder, '002_more.sql'), 'ALTER TABLE a ADD COLUMN name TEXT;');
        expect(migrate(db, folder).applied.map((m) => m.name)).toEqual(['more']);
      } finally {
        db.close();
      }
    }));

  it('rolls back a failing migration whole and keeps the earlier ones', () =>
    withTempDir((dir) => {
      const folder = writeMigrations(dir, {
        '001_ok.sql': 'CREATE TABLE a (id INTEGER PRIMARY KEY);',
        '002_broken.sql': 'CREATE TABLE half (id INTEGER); THIS IS NOT SQL;',
      });
      const db = openDatabase(join(dir, 'db.sqlite'));
      try {
        expect(() => migrate(db, folder)).toThrow();
        expect(tables(db)).toEqual(['a', 'schema_migrations']);
        expect(db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get()).toEqual({ v: 1 });
      } finally {
        db.close();
      }
    }));

  it('refuses a database newer than the code', () =>
    withTempDir((dir) => {
      const folder = writeMigrations(dir, {
        '001_a.sql': 'CREATE TABLE a (id INTEGER);',
        '002_b.sql': 'CREATE TABLE b (id INTEGER);',
      });
      const db = openDatabase(join(dir, 'db.sqlite'));
      try {
        migrate(db, folder);
        const older = writeMigrations(join(dir, 'old'), { '001_a.sql': 'CREATE TABLE a (id INTEGER);' });
        expect(() => migrate(db, older)).toThrow(DatabaseTooNewError);
        expect(() => migrate(db, older)).toThrow(/at migration 2 but this code only knows up to 1/);
      } finally {
        db.close();
      }
    }));

  it('refuses two migrations with the same number', () =>
    withTempDir((dir) => {
      const folder = writeMigrations(dir, { '001_a.sql': 'SELECT 1;', '1_b.sql': 'SELECT 1;' });
      const db = openDatabase(join(dir, 'db.sqlite'));
      try {
        expect(() => migrate(db, folder)).toThrow(MigrationFileError);
      } finally {
        db.close();
      }
    }));

  it('applies the shipped sandbox migrations to an empty database', () =>
    withTempDir((dir) => {
      const db = openDatabase(join(dir, 'db.sqlite'));
      try {
        expect(migrate(db, paths.sandboxMigrations).version).toBeGreaterThan(0);
        expect(migrate(db, paths.sandboxMigrations).applied).toEqual([]);
      } finally {
        db.close();
      }
    }));
});
