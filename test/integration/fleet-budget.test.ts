/**
 * The fleet budget (docs/fleet.md, "The fleet budget"): three running plugins, each with its own
 * data folder, on one sandbox key limited to KEY_RATE requests a second, sharing a real
 * PostgreSQL. Each `wpp serve` claims its need once a second and paces at the share it leases;
 * the server holding the most at-risk websites gets its reads done first; with the fleet
 * database cut off, each paces itself and keeps working, and follows the fleet again once it is back.
 * The plugins reach PostgreSQL through a port forwarded by the test, so it can cut them off.
 */
import { appendFileSync } from 'node:fs';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPacerBucketRepo } from '../../src/db/pacer-bucket.repo.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startTestPlugin } from '../helpers/plugin.js';
import { removeTempDir, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';
import { forwardedPort } from '../helpers/port-forward.js';
import { budgetRate, providerAnswers } from '../helpers/provider-answers.js';

const KEY_RATE = 15;
const WEBSITES_PER_SERVER = 24;
const MINUTE = 60_000;

type Plugin = Awaited<ReturnType<typeof startTestPlugin>>;
interface FleetServer {
  name: string;
  plugin: Plugin;
  logs: { msg: string }[];
}

const leaseOf = (server: FleetServer) => createPacerBucketRepo(server.plugin.db).lease();
const following = (server: FleetServer) => {
  const lease = leaseOf(server);
  return lease !== null && lease.until > Date.now();
};
const totals = async (servers: FleetServer[]) => {
  const answers = await Promise.all(servers.map((server) => providerAnswers(server.plugin.url)));
  return answers.reduce((sum, a) => ({ all: sum.all + a.all, limited: sum.limited + a.limited }), { all: 0, limited: 0 });
};

/** Plans every website of a server due now: at risk (read two minutes after its last read) or quiet (an hour, and due earlier). */
function planReads(server: FleetServer, atRisk: boolean) {
  const now = Date.now();
  const [last, next] = atRisk ? [now - 2 * MINUTE - 1000, now - 1000] : [now - 61 * MINUTE, now - MINUTE];
  server.plugin.db.prepare('UPDATE read_schedule SET last_read_at = ?, next_read_at = ?').run(last, next);
}

let postgres: TestPostgres;
let sandbox: TestSandbox;
let tunnel: Awaited<ReturnType<typeof forwardedPort>>;
const servers: FleetServer[] = [];

beforeAll(async () => {
  [postgres, sandbox] = await Promise.all([startTestPostgres(), startTestSandbox({ certDelaySeconds: 0, rateLimitPerSecond: KEY_RATE })]);
  tunnel = await forwardedPort(postgres.port);
  await tunnel.up();
  const database = new URL(await postgres.newDatabase());
  database.port = String(tunnel.port);
  for (const name of ['a', 'b', 'c']) {
    const logs: { msg: string }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as { msg: string }) });
    const plugin = await startTestPlugin(sandbox, {
      logger,
      env: { WPP_SYNC_RATE: '40', WPP_FLEET_DATABASE_URL: database.toString(), WPP_FLEET_KEY_RATE: String(KEY_RATE) },
    });
    servers.push({ name, plugin, logs });
  }
  // Each server's customers and websites, provisioned through its budget (the fleet's, once joined).
  await Promise.all(
    servers.map(async ({ name, plugin }) => {
      const domains = Array.from({ length: WEBSITES_PER_SERVER }, (_, i) => `${name}${i}.example`);
      await plugin.postEvents(domains.map((domain) => ({ type: 'domain.added', account: `${name}-customer`, domain })));
      await plugin.idle(60_000);
    }),
  );
  await waitFor(() => servers.every(following), 10_000, 'every server to follow its lease');
}, 120_000);

afterAll(async () => {
  for (const { plugin } of servers) {
    await plugin.close();
    removeTempDir(plugin.dataDir);
  }
  await tunnel?.down();
  await Promise.all([postgres?.stop(), sandbox?.close()]);
  if (sandbox) removeTempDir(sandbox.dataDir);
});

/** Every server reads its due websites at once; when each finished, ms after the start. */
async function readAll(): Promise<{ doneMs: number[]; read: number[] }> {
  const started = Date.now();
  const results = await Promise.all(
    servers.map(async ({ plugin }) => {
      const result = await plugin.readDueStatistics();
      return { doneMs: Date.now() - started, read: result.read };
    }),
  );
  return { doneMs: results.map((r) => r.doneMs), read: results.map((r) => r.read) };
}

describe('the fleet budget: three servers, one partner key, one PostgreSQL', () => {
  it("keeps under the key's rate and reads the most at-risk server's websites first", async () => {
    planReads(servers[0]!, true);
    planReads(servers[1]!, false);
    planReads(servers[2]!, false);
    // Two rounds: the fleet sees the new need (a's websites at risk) before the reads start, as it does a tick's due reads.
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const shares = servers.map((server) => leaseOf(server)?.rate ?? 0);
    // The operator's view of it: /metrics says the budget's rate is the fleet's share.
    const shown = await budgetRate(servers[0]!.plugin.url);
    expect(shown?.source).toBe('fleet');
    expect(shown?.rate).toBeGreaterThan(0);
    expect(shown?.rate).toBeLessThanOrEqual(KEY_RATE);
    const before = await totals(servers);
    const run = await readAll();
    const after = await totals(servers);
    const requests = after.all - before.all;
    const limited = after.limited - before.limited;
    const figures = { keyRate: KEY_RATE, sharesBefore: shares, ...run, requests, limited, limitedShare: limited / requests };
    if (process.env.WPP_TEST_PACER_LOG) appendFileSync(process.env.WPP_TEST_PACER_LOG, `${JSON.stringify({ fleet: figures })}\n`);
    expect(run.read).toEqual([WEBSITES_PER_SERVER, WEBSITES_PER_SERVER, WEBSITES_PER_SERVER]);
    // a's websites at risk: the fleet gave a most of the key, and a was done well before the others.
    expect(shares[0]).toBeGreaterThan(shares[1]! + shares[2]!);
    expect(run.doneMs[0]).toBeLessThan(Math.min(run.doneMs[1]!, run.doneMs[2]!) * 0.7);
    // Every lease together stays within the key's rate: next to no 429s (measured: none of 72, twice).
    expect(limited / requests).toBeLessThanOrEqual(0.02);
    // The whole run at about the key's rate, not far below it (3 x 24 reads at 15 a second: 4.8 s).
    expect(Math.max(...run.doneMs)).toBeLessThan(((3 * WEBSITES_PER_SERVER) / KEY_RATE) * 1000 * 1.8);
  }, 30_000);

  it('with the fleet database cut off mid-run, each server paces itself and keeps working, and follows the fleet again once it is back', async () => {
    for (const server of servers) planReads(server, false);
    const before = await totals(servers);
    const reading = readAll();
    // Half a second into the reads, the database goes away under them.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await tunnel.down();
    await waitFor(() => servers.every((server) => !following(server)), 5_000, 'every server to drop its lease');
    expect((await budgetRate(servers[0]!.plugin.url))?.source).toBe('learned');
    const run = await reading;
    const after = await totals(servers);
    const alone = { ...run, requests: after.all - before.all, limited: after.limited - before.limited };
    if (process.env.WPP_TEST_PACER_LOG) appendFileSync(process.env.WPP_TEST_PACER_LOG, `${JSON.stringify({ alone })}\n`);
    expect(run.read).toEqual([WEBSITES_PER_SERVER, WEBSITES_PER_SERVER, WEBSITES_PER_SERVER]);
    for (const { logs } of servers) expect(logs.filter((line) => line.msg.startsWith('fleet budget unavailable')).length).toBe(1);

    const reopened = Date.now();
    await tunnel.up();
    await waitFor(() => servers.every(following), 10_000, 'every server to follow its lease again');
    if (process.env.WPP_TEST_PACER_LOG)
      appendFileSync(process.env.WPP_TEST_PACER_LOG, `${JSON.stringify({ rejoinMs: Date.now() - reopened })}\n`);
    for (const { logs } of servers) expect(logs.filter((line) => line.msg.startsWith('fleet budget joined')).length).toBe(2);
    // Once back, the leases add up to the key's rate at most.
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    const total = servers.reduce((sum, server) => sum + (leaseOf(server)?.rate ?? 0), 0);
    expect(total).toBeLessThanOrEqual(KEY_RATE + 0.2);
  }, 30_000);
});
