/**
 * How a panel server joins the fleet database (src/fleet/link.ts, src/wiring/fleet.ts), with a
 * real PostgreSQL from npm: `wpp serve` registers itself under its own id without waiting for
 * it, a hook or one-shot command never connects, and a database that is down at the start is
 * joined once it answers, with one warning meanwhile and never the password.
 */
import { pino } from 'pino';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlugin } from '../../src/main.js';
import { connectFleet } from '../../src/fleet/link.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startTestPlugin, testConfig } from '../helpers/plugin.js';
import { createTempDir, removeTempDir, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { forwardedPort } from '../helpers/port-forward.js';
import { waitFor } from '../helpers/wait.js';

let postgres: TestPostgres;
let sandbox: TestSandbox;
beforeAll(async () => {
  [postgres, sandbox] = await Promise.all([startTestPostgres(), startTestSandbox()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([postgres?.stop(), sandbox?.close()]);
  if (sandbox) removeTempDir(sandbox.dataDir);
});

async function fleetServers(url: string): Promise<{ server_id: string; name: string }[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const exists = await client.query("SELECT to_regclass('fleet_servers') AS t");
    if (!exists.rows[0].t) return [];
    return (await client.query('SELECT server_id, name FROM fleet_servers ORDER BY server_id')).rows;
  } finally {
    await client.end();
  }
}

describe('joining the fleet database', () => {
  it('wpp serve registers itself under its server id in the background; a one-shot command never connects', async () => {
    const url = await postgres.newDatabase();
    const commandDir = createTempDir('wpp-fleet-cmd-');
    try {
      const command = await startPlugin({
        config: testConfig(commandDir, sandbox, { WPP_FLEET_DATABASE_URL: url }),
        role: 'command',
        logger: pino({ level: 'silent' }),
      });
      await command.close();
      expect(await fleetServers(url)).toEqual([]);

      const plugin = await startTestPlugin(sandbox, { env: { WPP_FLEET_DATABASE_URL: url, WPP_SERVER_NAME: 'web7.host.example' } });
      try {
        const rows = await waitFor(
          async () => {
            const found = await fleetServers(url);
            return found.length > 0 && found;
          },
          10_000,
          'the server to register in the fleet database',
        );
        expect(rows).toEqual([{ server_id: plugin.serverId, name: 'web7.host.example' }]);
      } finally {
        await plugin.close();
        removeTempDir(plugin.dataDir);
      }
    } finally {
      removeTempDir(commandDir);
    }
  });

  it('a fleet database down at the start is joined once it answers; one warning meanwhile, never the password', async () => {
    const database = await postgres.newDatabase();
    const later = await forwardedPort(postgres.port);
    const url = database.replace(`:${postgres.port}/`, `:${later.port}/`);
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const link = connectFleet({ databaseUrl: url, identity: { serverId: 'srv-late', name: 'web9' }, logger, retryMs: 50 });
    try {
      await waitFor(() => lines.some((line) => line.includes('fleet database unavailable')), 5000, 'the first failed attempt');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(link.pool()).toBeNull();
      await later.up();
      await link.ready();
      expect(link.pool()).not.toBeNull();
      expect(await fleetServers(database)).toEqual([{ server_id: 'srv-late', name: 'web9' }]);
      expect(lines.filter((line) => line.includes('fleet database unavailable'))).toHaveLength(1);
      expect(lines.some((line) => line.includes('fleet database joined'))).toBe(true);
      expect(lines.join('\n')).not.toContain(postgres.password);
    } finally {
      await link.close();
      await later.down();
    }
  });
});
