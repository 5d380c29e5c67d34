/**
 * The fleet budget's round in a real PostgreSQL (src/fleet/budget.ts, fleet migration 002):
 * rounds of several servers at the same moment follow one another under the budget row's lock,
 * so the shares leased at any time never add up to more than the key's rate; a 429 one server
 * reports lowers the key's rate every server's next share is cut from.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideFleetRound, fleetKeyRules, initialKeyState, type FleetRound } from '../../src/core/fleet-budget.js';
import { claimFleetShare, RETIRED_CLAIM_MS } from '../../src/fleet/budget.js';
import { openFleetDatabase, type FleetDatabase } from '../../src/fleet/database.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js';

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
}, 60_000);
afterAll(async () => {
  await postgres?.stop();
});

const KEY_RATE = 20;
const LEASE_MS = 3_000;

/** One server's round against the fleet database, as wiring/fleet-budget.ts makes it. */
function roundOf(database: FleetDatabase, serverId: string, need: { urgent: number; backlog: number; risk: number }, rateLimited = false) {
  const rules = fleetKeyRules(KEY_RATE, 40);
  return claimFleetShare(
    database.pool,
    { serverId, ...need, ceiling: 40 },
    {
      initial: initialKeyState(rules),
      leaseMs: LEASE_MS,
      decide: (input) => decideFleetRound({ ...input, serverId, rateLimited }, { key: rules }),
    },
  );
}

/** The shares whose leases run now, by the database's clock. */
async function leasedNow(url: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = await client.query<{ share: number }>(
      'SELECT share FROM fleet_budget_claims WHERE lease_until > extract(epoch FROM clock_timestamp()) * 1000',
    );
    return rows.rows.map((row) => row.share);
  } finally {
    await client.end();
  }
}

describe('the fleet budget round in PostgreSQL', () => {
  it("never leases more than the key's rate in all, however many servers claim at once, and hands the most at-risk server the most", async () => {
    const url = await postgres.newDatabase();
    const servers = await Promise.all(Array.from({ length: 6 }, () => openFleetDatabase(url)));
    try {
      const needs = servers.map((_, i) => ({ urgent: i === 0 ? 2 : 0, backlog: 30, risk: i === 5 ? 0.9 : 0 }));
      let worst = 0;
      let last: FleetRound[] = [];
      // Ten rounds of all six at the same moment, as servers whose timers fire together.
      for (let round = 0; round < 10; round++) {
        last = await Promise.all(servers.map((database, i) => roundOf(database, `srv-${i}`, needs[i]!)));
        worst = Math.max(
          worst,
          (await leasedNow(url)).reduce((sum, share) => sum + share, 0),
        );
      }
      expect(worst).toBeLessThanOrEqual(KEY_RATE + 1e-6);
      expect(last.every((round) => round.servers === 6)).toBe(true);
      // Once settled: floors of 1, srv-0's urgent 2, then srv-5's backlog (at risk), of 95% of 20.
      const shares = last.map((round) => round.share);
      expect(shares[5]).toBeGreaterThan(10);
      expect(shares[0]).toBeCloseTo(2);
      for (const i of [1, 2, 3, 4]) expect(shares[i]).toBeCloseTo(1);
    } finally {
      await Promise.all(servers.map((database) => database.close()));
    }
  }, 30_000);

  it("lowers the key's rate for every server when one of them met a 429", async () => {
    const url = await postgres.newDatabase();
    const [a, b] = await Promise.all([openFleetDatabase(url), openFleetDatabase(url)]);
    try {
      const need = { urgent: 0, backlog: 50, risk: 0 };
      expect((await roundOf(a!, 'srv-a', need)).key.keyRate).toBe(KEY_RATE);
      expect((await roundOf(a!, 'srv-a', need, true)).key.keyRate).toBeCloseTo(KEY_RATE * 0.7);
      const seenByB = await roundOf(b!, 'srv-b', need);
      expect(seenByB.key.keyRate).toBeLessThan(KEY_RATE * 0.71);
      expect(seenByB.share).toBeLessThanOrEqual(KEY_RATE * 0.7 * 0.95);
    } finally {
      await Promise.all([a?.close(), b?.close()]);
    }
  }, 30_000);

  it('deletes the claim of a server gone for longer than an hour, and keeps one that is only away', async () => {
    const url = await postgres.newDatabase();
    const database = await openFleetDatabase(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await roundOf(database, 'srv-live', { urgent: 0, backlog: 5, risk: 0 });
      const serverIds = async () =>
        (await client.query<{ server_id: string }>('SELECT server_id FROM fleet_budget_claims ORDER BY server_id')).rows.map(
          (row) => row.server_id,
        );
      const now = Date.now();
      const insert =
        'INSERT INTO fleet_budget_claims (budget, server_id, urgent, backlog, risk, ceiling, claimed_at, lease_until) VALUES ($1, $2, 0, 0, 0, 40, $3, $4)';
      await client.query(insert, ['provider', 'srv-retired', now - RETIRED_CLAIM_MS - 60_000, now - RETIRED_CLAIM_MS - 57_000]);
      await client.query(insert, ['provider', 'srv-away', now - 10 * 60_000, now - 10 * 60_000 + 3_000]);
      expect(await serverIds()).toEqual(['srv-away', 'srv-live', 'srv-retired']);
      await roundOf(database, 'srv-live', { urgent: 0, backlog: 5, risk: 0 });
      expect(await serverIds()).toEqual(['srv-away', 'srv-live']);
    } finally {
      await client.end();
      await database.close();
    }
  }, 30_000);
});
