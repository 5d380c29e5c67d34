/**
 * The fleet database's edge (issue 23, section 3), against a real PostgreSQL from npm
 * (test/helpers/postgres.ts): WPP_FLEET_DATABASE_URL as configuration reads it, the fleet's
 * migrations applied once however many servers open the database, and a server's own row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { loadMigrations } from '../../src/db/migrate.js';
import { paths } from '../../src/paths.js';
import { isAppError } from '../../src/errors.js';
import { openFleetDatabase, type FleetDatabase } from '../../src/fleet/database.js';
import { recordFleetServer } from '../../src/fleet/servers.js';
import { forwardedPort } from '../helpers/port-forward.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

/** Every fleet migration shipped (migrations/fleet), as a new database gets them. */
const shipped = loadMigrations(paths.fleetMigrations);
const versions = shipped.map((migration) => migration.version);

const machine = { hostname: 'web1', primaryIp: '198.51.100.4' };

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
}, 60_000);
afterAll(async () => {
  await postgres?.stop();
});

/** Runs `fn` with the fleet database opened on `url`, closing its pool whatever happens. */
async function withFleet<T>(url: string, fn: (fleet: FleetDatabase) => Promise<T>): Promise<T> {
  const fleet = await openFleetDatabase(url);
  try {
    return await fn(fleet);
  } finally {
    await fleet.close();
  }
}

/** What the database records, read as an operator's psql would, on a connection of its own. */
async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('WPP_FLEET_DATABASE_URL', () => {
  it('is optional: unset, the server has no fleet database', () => {
    expect(loadConfig({}, machine, 'standalone').fleet).toEqual({ databaseUrl: undefined });
  });

  it('takes a postgres:// or postgresql:// URL', () => {
    expect(loadConfig({ WPP_FLEET_DATABASE_URL: postgres.url }, machine, 'standalone').fleet.databaseUrl).toBe(postgres.url);
    const long = postgres.url.replace('postgres://', 'postgresql://');
    expect(loadConfig({ WPP_FLEET_DATABASE_URL: long }, machine, 'standalone').fleet.databaseUrl).toBe(long);
  });

  it('refuses anything else with a configuration error that names the variable and never the password', () => {
    const password = 'fleet-Pa55word-never-shown';
    for (const bad of [
      `mysql://wpp:${password}@db.host.example/fleet`,
      `postgres://wpp:${password}@/fleet`,
      `wpp:${password}@db.host.example/fleet`,
    ]) {
      let caught: unknown;
      try {
        loadConfig({ WPP_FLEET_DATABASE_URL: bad }, machine, 'standalone');
      } catch (error) {
        caught = error;
      }
      expect(isAppError(caught) && caught.code, bad).toBe('CONFIG_INVALID');
      const message = (caught as Error).message;
      expect(message).toContain('WPP_FLEET_DATABASE_URL: must be a postgres:// or postgresql:// URL with a host');
      expect(message).not.toContain(password);
      expect(JSON.stringify((caught as { details: unknown }).details)).not.toContain(password);
    }
  });
});

describe('the fleet database', () => {
  it('applies its migrations once: a second server opening it applies nothing', async () => {
    const url = await postgres.newDatabase();
    const first = await withFleet(url, async (fleet) => fleet.applied);
    expect(versions[0]).toBe(1);
    expect(first).toEqual(versions);
    const second = await withFleet(url, async (fleet) => fleet.applied);
    expect(second).toEqual([]);
    const recorded = await query<{ version: number; name: string }>(
      url,
      'SELECT version, name FROM fleet_schema_migrations ORDER BY version',
    );
    expect(recorded).toEqual(shipped.map(({ version, name }) => ({ version, name })));
  });

  it('is migrated once when several servers open a new database at the same moment', async () => {
    const url = await postgres.newDatabase();
    const fleets = await Promise.all(Array.from({ length: 4 }, () => openFleetDatabase(url)));
    try {
      // Each migration once between them: with several, one server may apply the first and another the next.
      expect(fleets.flatMap((fleet) => fleet.applied).sort((a, b) => a - b)).toEqual(versions);
    } finally {
      await Promise.all(fleets.map((fleet) => fleet.close()));
    }
  });

  it("records a server's row: registered once, seen at each start, renamed when its name changes", async () => {
    await withFleet(postgres.url, async (fleet) => {
      const first = new Date('2026-11-26T10:00:00Z');
      const later = new Date('2026-11-26T11:30:00Z');
      await recordFleetServer(fleet.pool, { serverId: 'web1-4f2a', name: 'web1' }, first);
      await recordFleetServer(fleet.pool, { serverId: 'web2-9c1d', name: 'web2' }, first);
      await recordFleetServer(fleet.pool, { serverId: 'web1-4f2a', name: 'web1.host.example' }, later);
    });
    const rows = await query<{ server_id: string; name: string; registered_at: Date; last_seen_at: Date }>(
      postgres.url,
      'SELECT server_id, name, registered_at, last_seen_at FROM fleet_servers ORDER BY server_id',
    );
    expect(rows.map((row) => [row.server_id, row.name, row.registered_at.toISOString(), row.last_seen_at.toISOString()])).toEqual([
      ['web1-4f2a', 'web1.host.example', '2026-11-26T10:00:00.000Z', '2026-11-26T11:30:00.000Z'],
      ['web2-9c1d', 'web2', '2026-11-26T10:00:00.000Z', '2026-11-26T10:00:00.000Z'],
    ]);
  });

  it('a database it cannot log in to is UNAVAILABLE, named by the variable, with the password redacted', async () => {
    const wrong = 'not-the-Pa55word-either';
    const url = postgres.url.replace(encodeURIComponent(postgres.password), wrong);
    let caught: unknown;
    try {
      await openFleetDatabase(url);
    } catch (error) {
      caught = error;
    }
    expect(isAppError(caught) && caught.code).toBe('UNAVAILABLE');
    const message = (caught as Error).message;
    expect(message).toContain('WPP_FLEET_DATABASE_URL');
    expect(message).toContain(`postgres://wpp_test:[redacted]@127.0.0.1:${postgres.port}/`);
    expect(message).toContain('password authentication failed');
    expect(message).not.toContain(wrong);
  });

  it('a database nobody listens for is UNAVAILABLE at once, not a hang', async () => {
    const url = postgres.url.replace(`:${postgres.port}/`, ':1/');
    await expect(openFleetDatabase(url)).rejects.toThrow(/WPP_FLEET_DATABASE_URL.*cannot be reached.*ECONNREFUSED/s);
  });

  it('a connection lost in the middle of a migration fails the open, UNAVAILABLE, and never the process', async () => {
    const dir = createTempDir('wpp-fleet-migrations-');
    writeFileSync(join(dir, '001_slow.sql'), 'SELECT pg_sleep(3);');
    const proxy = await forwardedPort(postgres.port);
    await proxy.up();
    const url = (await postgres.newDatabase()).replace(`:${postgres.port}/`, `:${proxy.port}/`);
    try {
      const opening = openFleetDatabase(url, { migrationsDir: dir });
      // Cut while the migration runs on its checked-out connection.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await proxy.down();
      await expect(opening).rejects.toThrow(/WPP_FLEET_DATABASE_URL.*cannot be reached or migrated/s);
    } finally {
      await proxy.down();
      removeTempDir(dir);
    }
  });
});
