/**
 * An upgrade from the previous release (0.1.0 at migration 010, API keys stored in plain
 * text): the new code migrates the database forward, encrypts the keys with a new key file,
 * keeps every row, and the customer's key still works where it is used.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openApiKeys } from '../../src/db/api-keys.js';
import { migrate } from '../../src/db/migrate.js';
import { paths } from '../../src/paths.js';
import { createPageClient } from '../helpers/page-client.js';
import { customer, launchUrl } from '../helpers/pages.js';
import { startTestPlugin } from '../helpers/plugin.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const PREVIOUS_RELEASE_MIGRATIONS = 10;

/** The schema the previous release created: its migrations only, on an empty database. */
function previousReleaseSchema(dir: string): string[] {
  const folder = join(dir, 'old-migrations');
  mkdirSync(folder);
  for (const name of readdirSync(paths.migrations).filter((n) => /^\d{3}_.*\.sql$/.test(n))) {
    if (Number(name.slice(0, 3)) <= PREVIOUS_RELEASE_MIGRATIONS) copyFileSync(join(paths.migrations, name), join(folder, name));
  }
  const db = new Database(join(dir, 'old-schema.sqlite'));
  migrate(db, folder);
  const schema = db
    .prepare("SELECT type || ' ' || name || ': ' || COALESCE(sql, '') AS s FROM sqlite_master ORDER BY name")
    .pluck()
    .all() as string[];
  db.close();
  return schema;
}

/** A table's CREATE statement as the migrations up to `version` leave it (a rebuilt table's undo makes it again exactly). */
function tableSqlAt(dir: string, table: string, version: number): string {
  const folder = join(dir, `migrations-${version}`);
  mkdirSync(folder);
  for (const name of readdirSync(paths.migrations).filter((n) => /^\d{3}_.*\.sql$/.test(n))) {
    if (Number(name.slice(0, 3)) <= version) copyFileSync(join(paths.migrations, name), join(folder, name));
  }
  const db = new Database(join(dir, `schema-${version}.sqlite`));
  migrate(db, folder);
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(table) as string;
  db.close();
  return sql;
}

/**
 * Rebuilds websites as migration `version` left it (a migration that widened a CHECK rebuilt it):
 * its rows, indexes and triggers kept.
 */
function websitesAsAt(db: Database.Database, scratch: string, version: number): void {
  const objects = db
    .prepare("SELECT sql FROM sqlite_master WHERE tbl_name = 'websites' AND type IN ('index', 'trigger') AND sql IS NOT NULL")
    .pluck()
    .all() as string[];
  const older = `websites_${version}`;
  db.exec(
    `${tableSqlAt(scratch, 'websites', version).replace('CREATE TABLE "websites"', `CREATE TABLE ${older}`)};
     INSERT INTO ${older} SELECT * FROM websites; DROP TABLE websites; ALTER TABLE ${older} RENAME TO websites;
     ${objects.join(';\n')};`,
  );
}

const counts = (db: Database.Database) =>
  Object.fromEntries(
    ['accounts', 'websites', 'jobs', 'stats_samples', 'website_status_changes', 'enforcement_actions'].map((table) => [
      table,
      db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get(),
    ]),
  );

describe('an upgrade from the previous release', () => {
  it('keeps every row, brings the schema forward, encrypts the stored keys, and the keys still work', async () => {
    const sandbox = await startTestSandbox({ certDelaySeconds: 0 });
    const scratch = createTempDir();
    let dataDir: string | undefined;
    try {
      // A database with real history: accounts and websites provisioned at the sandbox, a sync.
      const first = await startTestPlugin(sandbox);
      dataDir = first.dataDir;
      const answer = await first.postEvents([
        { type: 'account.created', account: 'alice', email: 'alice@mail.example' },
        { type: 'domain.added', account: 'alice', domain: 'alice.example' },
        { type: 'account.created', account: 'bob' },
        { type: 'domain.added', account: 'bob', domain: 'bob.example' },
      ]);
      expect(answer.status).toBe(202);
      await first.idle();
      await first.syncStatistics();
      const aliceKey = first.accounts.getAccount('alice')?.providerApiKey as string;
      expect(aliceKey).toBeTruthy();
      await first.close();

      // ... turned into exactly what release 0.1.0 left (the oldest upgrade path: 0.1 and 0.2 to
      // this one): plain keys, no migrations 011 to 025, no key file.
      const file = join(dataDir, 'plugin.sqlite');
      const db = new Database(file);
      const { keys } = openApiKeys(db, join(dataDir, 'api-keys.key'), () => undefined);
      for (const row of db.prepare('SELECT account, provider_api_key AS k FROM accounts WHERE provider_api_key IS NOT NULL').all() as {
        account: string;
        k: string;
      }[]) {
        db.prepare('UPDATE accounts SET provider_api_key = ? WHERE account = ?').run(keys.open(row.k, row.account), row.account);
      }
      // 030 marked background jobs (an import's events, bulk protect's) and indexed the claim's order by it.
      db.exec('DROP INDEX jobs_due_by_priority; ALTER TABLE jobs DROP COLUMN background;');
      // 029 added the fleet budget's lease to the pacer's bucket (dropped with it below).
      db.exec('ALTER TABLE pacer_bucket DROP COLUMN lease_until; ALTER TABLE pacer_bucket DROP COLUMN lease_rate;');
      // 028 added the fleet view's outbox and the doctor's last run (its triggers exist only on a server in a fleet).
      db.exec('DROP TABLE fleet_outbox; DROP TABLE doctor_results;');
      // 025 added the pacer's shared bucket.
      db.exec('DROP TABLE pacer_bucket');
      // 024 rebuilt websites for paused_by 'reseller': the table as 023 left it, rows, indexes and triggers kept.
      websitesAsAt(db, scratch, 23);
      // 023 added the resellers' language.
      db.exec('DROP TRIGGER sessions_reseller_locale; ALTER TABLE resellers DROP COLUMN locale;');
      // 021 added the mails' log, the resellers' digest events and the readers' languages.
      db.exec(
        `DROP TRIGGER sessions_customer_locale; DROP TRIGGER sessions_admin_locale; DROP TABLE mail_log; DROP TABLE mail_digest_events;
         ALTER TABLE accounts DROP COLUMN locale;`,
      );
      // 020 added protection per package and rebuilt websites (paused_by 'package'): the table as 019 left it, rows, indexes and triggers kept.
      websitesAsAt(db, scratch, 19);
      db.exec(
        'DROP TABLE packages; ALTER TABLE accounts DROP COLUMN protection_removed_at; ALTER TABLE accounts DROP COLUMN protection_included;',
      );
      db.exec('DROP TABLE panel_comparisons');
      // 016: monitoring first (a plan's days, each website's end of monitoring).
      db.exec('DROP TABLE website_monitoring; ALTER TABLE plans DROP COLUMN monitor_days;');
      db.exec(
        `DROP TRIGGER websites_schedule_inserted; DROP TRIGGER websites_schedule_account_changed;
         DROP TRIGGER websites_schedule_state_changed; DROP TABLE read_schedule; DROP TABLE account_forecast; DROP TABLE website_notices;`,
      );
      // 013 widened enforcement_actions' CHECK ('repause'): the table as 002 wrote it, rows kept.
      const oldActionsTable = /CREATE TABLE enforcement_actions \([\s\S]*?\n\);/.exec(
        readFileSync(join(paths.migrations, '002_statistics_and_limits.sql'), 'utf8'),
      )?.[0];
      db.exec(
        `ALTER TABLE enforcement_actions RENAME TO actions_013; ${oldActionsTable ?? ''}
         INSERT INTO enforcement_actions SELECT * FROM actions_013; DROP TABLE actions_013;
         CREATE INDEX enforcement_actions_account ON enforcement_actions (account, at);
         CREATE INDEX enforcement_actions_domain ON enforcement_actions (domain, at);
         CREATE INDEX enforcement_actions_at ON enforcement_actions (at, action);`,
      );
      // 014 added the last known settings of each website.
      db.exec('DROP TABLE settings_snapshots');
      // 015 added the provisioning columns of websites.
      db.exec(
        `ALTER TABLE websites DROP COLUMN provisioned_at; ALTER TABLE websites DROP COLUMN provisioning_error_code;
         ALTER TABLE websites DROP COLUMN provisioning_error; ALTER TABLE websites DROP COLUMN provisioning_failed_at;`,
      );
      // 017 added the sessions' language and 019 widened their role's CHECK ('reseller'): the table as 007 wrote it, rows kept.
      const oldSessionsTable = /CREATE TABLE sessions \([\s\S]*?\n\) WITHOUT ROWID;/.exec(
        readFileSync(join(paths.migrations, '007_sessions.sql'), 'utf8'),
      )?.[0];
      db.exec(
        `ALTER TABLE sessions RENAME TO sessions_019; ${oldSessionsTable ?? ''}
         INSERT INTO sessions SELECT id_hash, role, subject, panel, csrf_token, created_at, last_seen_at, expires_at FROM sessions_019;
         DROP TABLE sessions_019; CREATE INDEX sessions_expiry ON sessions (expires_at);`,
      );
      // 018 added resellers.
      db.exec('DROP TABLE resellers; DROP INDEX accounts_reseller; ALTER TABLE accounts DROP COLUMN reseller;');
      // 022 widened the limits' scope CHECK ('reseller'): the table as 002 wrote it, rows kept.
      const oldLimitsTable = /CREATE TABLE limits \([\s\S]*?\n\) WITHOUT ROWID;/.exec(
        readFileSync(join(paths.migrations, '002_statistics_and_limits.sql'), 'utf8'),
      )?.[0];
      db.exec(
        `ALTER TABLE limits RENAME TO limits_022; ${oldLimitsTable ?? ''}
         INSERT INTO limits SELECT * FROM limits_022; DROP TABLE limits_022;`,
      );
      db.prepare('DELETE FROM schema_migrations WHERE version > ?').run(PREVIOUS_RELEASE_MIGRATIONS);
      const schemaNow = db
        .prepare("SELECT type || ' ' || name || ': ' || COALESCE(sql, '') AS s FROM sqlite_master ORDER BY name")
        .pluck()
        .all();
      expect(schemaNow).toEqual(previousReleaseSchema(scratch));
      expect(db.prepare("SELECT provider_api_key FROM accounts WHERE account = 'alice'").pluck().get()).toBe(aliceKey);
      const before = counts(db);
      db.close();
      removeTempDir(join(dataDir, 'api-keys.key'));

      // The new release starts on it.
      const upgraded = await startTestPlugin(sandbox, { dataDir });
      try {
        const after = new Database(file, { readonly: true });
        expect(counts(after)).toEqual(before);
        expect(after.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBeGreaterThan(PREVIOUS_RELEASE_MIGRATIONS);
        const stored = after.prepare('SELECT provider_api_key FROM accounts WHERE provider_api_key IS NOT NULL').pluck().all() as string[];
        // Every website already read is in the adaptive schedule, due in the order of its last read.
        expect(
          after
            .prepare(
              'SELECT r.domain, r.next_read_at = l.taken_at AND r.last_read_at = l.taken_at AS due_from_last_read FROM read_schedule r JOIN stats_latest l USING (domain) ORDER BY r.domain',
            )
            .all(),
        ).toEqual([
          { domain: 'alice.example', due_from_last_read: 1 },
          { domain: 'bob.example', due_from_last_read: 1 },
        ]);
        after.close();
        expect(stored).toHaveLength(2);
        for (const value of stored) expect(value).toMatch(/^v1:/);
        expect(stored.join()).not.toContain(aliceKey);
        expect(existsSync(join(dataDir, 'api-keys.key'))).toBe(true);

        // The key is still the customer's: the rules editor frame carries it, and the repository reads it back.
        expect(upgraded.accounts.getAccount('alice')?.providerApiKey).toBe(aliceKey);
        const client = createPageClient(upgraded.url);
        expect((await client.get(launchUrl(upgraded, customer('alice')))).status).toBe(303);
        expect((await client.get('/panel/domains/alice.example/rules')).body).toContain(encodeURIComponent(aliceKey));
        // And new work still provisions with it.
        expect((await upgraded.postEvents([{ type: 'domain.added', account: 'alice', domain: 'shop.alice.example' }])).status).toBe(202);
        await upgraded.idle();
        expect(upgraded.jobs.counts().dead).toBe(0);
        expect(upgraded.accounts.getWebsite('shop.alice.example')?.state).toBe('active');
      } finally {
        await upgraded.close();
      }
    } finally {
      await sandbox.close();
      removeTempDir(scratch);
      removeTempDir(sandbox.dataDir);
      if (dataDir) removeTempDir(dataDir);
    }
  }, 60_000);
});
