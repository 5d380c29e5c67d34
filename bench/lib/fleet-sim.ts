/**
 * One mode of the fleet bench (bench/fleet.bench.ts) over the simulated period, in this
 * process: S panel servers, each the plugin's real read tick, enforcement and provider client
 * on its own SQLite file, all on one partner key of one sandbox (its own process, real HTTP on
 * 127.0.0.1), on one simulated clock (lib/sim-clock.ts).
 *
 * The key's rate is the sandbox's own per-key limiter (src/sandbox/rate-limit.ts) run on the
 * simulated clock in front of the sandbox: a request it refuses is answered as the sandbox
 * answers it (429, Retry-After in whole seconds) without the round trip, and its pacer is
 * told so exactly as the client tells it. The sandbox itself runs with its limiter off.
 *
 * Modes:
 *   - today: each server sends at WPP_SYNC_RATE whatever the 429s (a fixed-rate bucket that
 *     learns nothing), as the plugin did before issue 23;
 *   - adaptive: each server's real pacer (src/core/pacer.ts over its SQLite bucket, as
 *     src/wiring/pacer.ts builds it), learning the key's rate from the 429s, no coordinator;
 *   - coordinated: the same pacers, and each server's fleet budget round once a simulated
 *     second (src/wiring/fleet-budget.ts's need, src/core/fleet-budget.ts's round) through a
 *     real PostgreSQL (the fleet database, migrated as a server migrates it), the key's rate
 *     configured (WPP_FLEET_KEY_RATE, as docs/fleet.md advises when it is known). The round
 *     runs on the simulated clock: `now` is given to the database's transaction instead of
 *     its own clock.
 * Every tick asks the budget of its seconds at the rate the server's pacer has now, and a full
 * enforcement pass follows a tick every 5 minutes, as in `wpp serve`.
 * The client makes no retries of its own in any mode (a refused read is read next tick):
 * its retries wait in real time, which the simulated clock cannot follow.
 */
import type pg from 'pg';
import { pino } from 'pino';
import { createEnforcement } from '../../src/core/enforcement.js';
import { createFleetLeaseRound, decideFleetRound, fleetKeyRules, initialKeyState, leaseAwareStore } from '../../src/core/fleet-budget.js';
import { createMemoryBucket, createPacer, createSharedBucket, type Pacer, type PacerPriority } from '../../src/core/pacer.js';
import { dueNow, readTick } from '../../src/core/read-tick.js';
import { DEFAULT_RULES } from '../../src/core/read-schedule.js';
import { createAccountsRepo } from '../../src/db/accounts.repo.js';
import type { Db } from '../../src/db/open.js';
import { createPacerBucketRepo } from '../../src/db/pacer-bucket.repo.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import { createReadScheduleRepo } from '../../src/db/read-schedule.repo.js';
import { createStatisticsRepo } from '../../src/db/statistics.repo.js';
import { createProviderClient, type ProviderBudget, type ProviderClient } from '../../src/provider/index.js';
import { claimFleetShare } from '../../src/fleet/budget.js';
import { openFleetDatabase } from '../../src/fleet/database.js';
import { createRateLimiter } from '../../src/sandbox/rate-limit.js';
import { LEASE_MS, needOf, ROUND_MS } from '../../src/wiring/fleet-budget.js';
import { memory, postJson, seedHistory, START, WARMUP_MS, worldOf } from './detection-sim.js';
import { crossingAt, cumulativeAt } from './detection-world.js';
import { peakRssMb } from './proc.js';
import { createSimClock, type SimClock } from './sim-clock.js';
import { percentileSorted, round1 } from './stats.js';
import { domainOf, seedPluginDatabase, seedSandbox, unit } from './sync-seed.js';

const MINUTE = 60_000;
/** After the window: time for the last crossings' pauses (shorter than the detection bench's, for 20 servers' sake). */
export const TAIL_MS = 30 * MINUTE;
/** How long after the end the clock runs on for ticks still under way, at most. */
const OVERRUN_MS = 15 * MINUTE;
/** The seconds of budget a tick asks for (src/jobs/plugin-schedule.ts, TICK_BUDGET_SECONDS). */
const TICK_SECONDS = 55;
const CONCURRENCY = 16;
/** WPP_SYNC_INTERVAL_MINUTES's default: how often the full enforcement pass follows a tick. */
const ENFORCE_EVERY_MS = 5 * MINUTE;

export type Mode = 'today' | 'adaptive' | 'coordinated';
export const MODES: readonly Mode[] = ['today', 'adaptive', 'coordinated'];

export interface FleetSettings {
  servers: number;
  /** Websites in all. */
  n: number;
  users: number;
  limit: number;
  /** The key's requests a second (the sandbox's per-key limit). */
  keyRate: number;
  /** Each server's WPP_SYNC_RATE. */
  syncRate: number;
  windowMinutes: number;
}

export interface LatencySummary {
  crossings: number;
  unpaused: number;
  p50: number;
  p95: number;
  max: number;
}

export interface ModeReport {
  mode: Mode;
  requests: number;
  rate_limited: number;
  rate_limited_share: number;
  reads: number;
  fleet_minutes: LatencySummary;
  /** The server whose p95 is the highest. */
  worst_server: LatencySummary & { server: number };
  peak_rss_mb: number;
  wall_seconds: number;
}

/**
 * The server of website i: its account's (account u = i % users, placed by a hash of u), so an
 * account's websites are on one server and the crossers (i % 100 === 7) spread over all of them.
 */
export const serverOf = (i: number, settings: Pick<FleetSettings, 'servers' | 'users'>) =>
  Math.floor(unit(i % settings.users, 97) * settings.servers);
export const databaseFileOf = (dir: string, server: number) => `${dir}/server-${server}.sqlite`;
const indexOf = (domain: string) => Number(domain.slice(5, domain.indexOf('.')));

export function checkSettings(settings: FleetSettings): void {
  if (!Object.values(settings).every((value) => Number.isInteger(value) && value > 0))
    throw new Error('every setting is a positive integer');
  if (settings.users > settings.n) throw new Error('more accounts than websites');
}

/**
 * Seeds a run from the bench's parent process: the sandbox's users, websites and hits at the
 * start, and each server's database (its accounts and websites, as a running installation left
 * them: each website read once in the 45 minutes before the start).
 */
export async function seedFleet(settings: FleetSettings, sandbox: { url: string; partnerKey: string }, dir: string): Promise<void> {
  const { traffic } = worldOf(settings, TAIL_MS);
  const users = await seedSandbox({
    url: sandbox.url,
    partnerKey: sandbox.partnerKey,
    n: settings.n,
    users: settings.users,
    limit: settings.limit,
    traffic: (i) => {
      const t = traffic(i);
      return { hits: t.initial, blocked: t.initialBlocked, mitigated: 0 };
    },
  });
  for (let server = 0; server < settings.servers; server++) {
    const db = openPluginDatabase({ databaseFile: databaseFileOf(dir, server) });
    try {
      const mine = (i: number) => serverOf(i, settings) === server;
      seedPluginDatabase(db, { n: settings.n, users, limit: settings.limit, now: START, only: mine });
      seedHistory(db, createStatisticsRepo(db), createAccountsRepo(db), settings, traffic, mine);
    } finally {
      db.close();
    }
  }
}

/** What every server's provider calls pass through: the key's limiter on the simulated clock, and the counts. */
interface KeyGate {
  /** 0: the request may go; otherwise the sandbox's Retry-After, in ms. */
  admit(): number;
  counts: { requests: number; rateLimited: number };
}

function createKeyGate(clock: SimClock, keyRate: number): KeyGate {
  const limiter = createRateLimiter(keyRate, clock.now);
  const counts = { requests: 0, rateLimited: 0 };
  return {
    counts,
    admit() {
      counts.requests++;
      const waitMs = limiter.take('partner');
      if (waitMs === 0) return 0;
      counts.rateLimited++;
      // As the sandbox answers (src/sandbox/api.routes.ts): whole seconds, at least one.
      return Math.max(1, Math.ceil(waitMs / 1000)) * 1000;
    },
  };
}

/** Thrown for a request the key's limiter refused: the call fails as a 429 would with no retry. */
class RateLimitedInBench extends Error {
  override readonly name = 'RateLimitedInBench';
}

/**
 * The budget the server's client takes from: the pacer's token (waited for as idle time on the
 * simulated clock), then the key's gate; a refusal is reported to the pacer as the client
 * reports a 429.
 */
function gatedBudget(pacer: Pacer, gate: KeyGate, clock: SimClock): ProviderBudget {
  return {
    async take(priority: PacerPriority, signal?: AbortSignal) {
      await clock.idleWhile(pacer.take(priority, signal));
      const retryAfterMs = gate.admit();
      if (retryAfterMs === 0) return;
      pacer.report({ rateLimited: true, retryAfterMs });
      throw new RateLimitedInBench(`429: retry after ${retryAfterMs} ms`);
    },
    report: (outcome) => pacer.report(outcome),
  };
}

/** The client's calls, each busy on the simulated clock from its start to its end (its waits for tokens excepted). */
function onTheClock(client: ProviderClient, clock: SimClock): ProviderClient {
  const timed =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const end = clock.busy();
      try {
        return await call(...args);
      } finally {
        end();
      }
    };
  return {
    ...client,
    getWebsiteStatistics: timed(client.getWebsiteStatistics),
    lookupWebsite: timed(client.lookupWebsite),
    setWebsiteStatus: timed(client.setWebsiteStatus),
    withPriority: (priority) => onTheClock(client.withPriority(priority), clock),
  };
}

function pacerFor(mode: Mode, db: Db, clock: SimClock, settings: FleetSettings): Pacer {
  if (mode === 'today') {
    // A fixed rate: the bucket learns nothing from the 429s (report is dropped), as each server's own rate did.
    const bucket = createMemoryBucket({ floor: settings.syncRate, ceiling: settings.syncRate }, clock.now());
    return createPacer({ source: { ...bucket, report: () => {} }, clock });
  }
  // As src/wiring/pacer.ts builds it, on the simulated clock: the SQLite bucket, following a lease while one runs.
  const source = createSharedBucket(leaseAwareStore(createPacerBucketRepo(db), clock.now), { floor: 1, ceiling: settings.syncRate });
  return createPacer({ source, clock });
}

/** A server's fleet budget round (coordinated mode), its database transaction busy on the simulated clock. */
function leaseRoundFor(
  server: { serverId: string; db: Db; pacer: Pacer; schedule: ReturnType<typeof createReadScheduleRepo> },
  pool: pg.Pool,
  clock: SimClock,
  settings: FleetSettings,
) {
  const bucket = createPacerBucketRepo(server.db);
  const keyRules = fleetKeyRules(settings.keyRate, settings.syncRate);
  const sync = {
    intervalMinutes: 5,
    concurrency: CONCURRENCY,
    ratePerSecond: settings.syncRate,
    mode: 'adaptive' as const,
    maxAgeMinutes: 60,
  };
  return createFleetLeaseRound({
    need: needOf({ schedule: server.schedule, now: clock.now }, server.pacer, { sync }, bucket),
    async exchange(claim) {
      const done = clock.busy();
      try {
        return await claimFleetShare(
          pool,
          { serverId: server.serverId, urgent: claim.urgent, backlog: claim.backlog, risk: claim.risk, ceiling: settings.syncRate },
          {
            initial: initialKeyState(keyRules),
            leaseMs: LEASE_MS,
            decide: (input) => decideFleetRound({ ...input, serverId: server.serverId, rateLimited: claim.rateLimited }, { key: keyRules }),
            now: clock.now(),
          },
        );
      } finally {
        done();
      }
    },
    lease: { set: (lease) => bucket.setLease(lease, clock.now()), clear: () => bucket.setLease(null, clock.now()) },
    logger: pino({ level: 'silent' }),
    now: clock.now,
    leaseMs: LEASE_MS,
  });
}

/** One mode over the simulated period on a seeded run (seedFleet); see the module comment. */
export async function simulateFleet(
  mode: Mode,
  settings: FleetSettings,
  sandbox: { url: string; partnerKey: string },
  dir: string,
  /** The fleet database (coordinated mode). */
  fleetUrl?: string,
): Promise<ModeReport> {
  const wall = performance.now();
  const { windowEnd, end, traffic } = worldOf(settings, TAIL_MS);
  const clock = createSimClock(START);
  const gate = createKeyGate(clock, settings.keyRate);
  const silent = pino({ level: 'silent' });
  const log = (message: string) => console.error(`[${mode}] ${message}`);
  const pausedAt = new Map<number, number>();
  const pushed = { hits: new Float64Array(settings.n), blocked: new Float64Array(settings.n) };
  for (let i = 0; i < settings.n; i++) {
    pushed.hits[i] = traffic(i).initial;
    pushed.blocked[i] = traffic(i).initialBlocked;
  }
  let reads = 0;

  /** Website i's hits up to `at` (or its pause) not yet in the sandbox, as a traffic item; null when none. */
  const accrual = (i: number, at: number) => {
    const cumulative = cumulativeAt(traffic(i), Math.min(at, pausedAt.get(i) ?? Infinity));
    const hits = cumulative.hits - (pushed.hits[i] as number);
    if (hits <= 0) return null;
    const blocked = Math.min(hits, Math.max(0, cumulative.blocked - (pushed.blocked[i] as number)));
    pushed.hits[i] = cumulative.hits;
    pushed.blocked[i] = (pushed.blocked[i] as number) + blocked;
    return { domain: domainOf(i), hits, blocked, category: blocked > 0 ? 'bad_bot' : '' };
  };

  const fleet = mode === 'coordinated' ? await openFleetDatabase(required(fleetUrl, 'the coordinated mode needs a fleet database')) : null;
  const servers = Array.from({ length: settings.servers }, (_, index) => {
    const db = openPluginDatabase({ databaseFile: databaseFileOf(dir, index) });
    const stats = createStatisticsRepo(db, clock.now);
    const accounts = createAccountsRepo(db, clock.now);
    const schedule = createReadScheduleRepo(db);
    const pacer = pacerFor(mode, db, clock, settings);
    const client = createProviderClient({
      baseUrl: sandbox.url,
      apiKey: sandbox.partnerKey,
      timeoutMs: 30_000,
      logger: silent,
      retry: { limit: 0 },
      budget: gatedBudget(pacer, gate, clock),
      priority: 'background',
    });
    const provider = onTheClock(client, clock);
    const counted: ProviderClient = {
      ...provider,
      getWebsiteStatistics: (domain, range, options) => {
        reads++;
        return provider.getWebsiteStatistics(domain, range, options);
      },
    };
    const urgent = provider.withPriority('urgent');
    const enforcement = createEnforcement({
      stats,
      accounts,
      provider: {
        ...urgent,
        setWebsiteStatus: async (domain, status) => {
          const answer = await urgent.setWebsiteStatus(domain, status);
          if (status === 'paused' && !pausedAt.has(indexOf(domain))) pausedAt.set(indexOf(domain), clock.now());
          return answer;
        },
      },
      logger: silent,
      now: clock.now,
      concurrency: CONCURRENCY,
    });
    const tickDeps = {
      stats,
      accounts,
      schedule,
      provider: counted,
      logger: silent,
      now: clock.now,
      enforceAccounts: enforcement.enforceAccounts,
    };
    const server = { index, serverId: `srv-bench-${index}`, db, pacer, schedule, tickDeps, enforcement };
    return { ...server, round: fleet ? leaseRoundFor(server, fleet.pool, clock, settings) : null };
  });

  let loggedQuarter = -1;
  /** A server's ticks, a minute apart from its own phase, as `wpp serve` runs them; its traffic pushed ahead of each. */
  const runServer = async (server: (typeof servers)[number]) => {
    // Servers were started at different times: their minutes do not line up.
    await clock.sleep(Math.floor((server.index / settings.servers) * MINUTE));
    let lastEnforce = clock.now();
    while (clock.now() < end) {
      const started = clock.now();
      const rate = server.pacer.rate();
      const budget = Math.max(1, Math.floor(rate * TICK_SECONDS));
      const websites = dueNow(server.schedule, started + TICK_SECONDS * 1000, budget);
      const items = websites.flatMap((website, j) => accrual(indexOf(website.domain), started + (j * 1000) / rate) ?? []);
      if (items.length > 0) {
        const done = clock.busy();
        await postJson(`${sandbox.url}/_sandbox/traffic`, sandbox.partnerKey, items).finally(done);
      }
      // Every 15 simulated minutes, as server 0's tick passes them (its ticks may run longer than a minute).
      const quarter = Math.floor((started - START) / (15 * MINUTE));
      if (server.index === 0 && quarter > loggedQuarter) {
        loggedQuarter = quarter;
        log(
          `minute ${Math.round((started - START) / MINUTE)}: ${gate.counts.requests} requests, ${gate.counts.rateLimited} 429s, ${pausedAt.size} paused; ${memory()}`,
        );
      }
      const tick = await readTick(server.tickDeps, {
        budget,
        concurrency: CONCURRENCY,
        rules: DEFAULT_RULES,
        lookaheadMs: TICK_SECONDS * 1000,
      });
      // Then a full enforcement pass every so often, as `wpp serve` runs it (src/jobs/plugin-schedule.ts): it
      // acts on stored usage only, and carries out again what a 429 stopped.
      if (!tick.skipped && clock.now() - lastEnforce >= ENFORCE_EVERY_MS) {
        lastEnforce = clock.now();
        await server.enforcement.enforceLimits();
      }
      await clock.sleep(Math.max(0, started + MINUTE - clock.now()));
    }
  };

  /** A server's fleet budget round once a simulated second, as wpp serve runs it (coordinated mode). */
  const runRounds = async (round: NonNullable<(typeof servers)[number]['round']>) => {
    while (clock.now() < end) {
      await round();
      await clock.sleep(ROUND_MS);
    }
  };

  let finished = 0;
  const running = [
    ...servers.map((server) => runServer(server)),
    ...servers.flatMap((server) => (server.round ? [runRounds(server.round)] : [])),
  ].map((loop) => loop.finally(() => finished++));
  try {
    // A tick begun just before the end may still wait for tokens after it (a low learned rate, a
    // Retry-After): the clock runs on until every loop is done. Loops waiting on a timer the clock
    // no longer fires would leave nothing in the event loop, and Node would end the process
    // (exit 13) without a report.
    await clock.run(end + OVERRUN_MS, () => finished === running.length);
    if (finished !== running.length) {
      throw new Error(
        `${running.length - finished} of the servers' loops still ran ${OVERRUN_MS / MINUTE} simulated minutes after the end`,
      );
    }
    await Promise.all(running);
  } finally {
    for (const server of servers) server.db.close();
    await fleet?.close();
  }
  log(`done: ${gate.counts.requests} requests, ${gate.counts.rateLimited} 429s, ${pausedAt.size} paused; ${memory()}`);

  // The crossings of the window, each with its pause, for the fleet and per server.
  const all: number[] = [];
  const byServer = Array.from({ length: settings.servers }, () => [] as number[]);
  const unpausedByServer = new Array<number>(settings.servers).fill(0);
  for (let i = 0; i < settings.n; i++) {
    const crossed = crossingAt(traffic(i), settings.limit, START + windowEnd);
    if (crossed === null || crossed < START + WARMUP_MS) continue;
    const paused = pausedAt.get(i);
    if (paused === undefined) unpausedByServer[serverOf(i, settings)]! += 1;
    const latency = (paused ?? end) - crossed;
    all.push(latency);
    byServer[serverOf(i, settings)]!.push(latency);
  }
  const summary = (latencies: number[], unpaused: number): LatencySummary => {
    latencies.sort((a, b) => a - b);
    const minutes = (ms: number) => round1(ms / MINUTE);
    return {
      crossings: latencies.length,
      unpaused,
      p50: minutes(percentileSorted(latencies, 50)),
      p95: minutes(percentileSorted(latencies, 95)),
      max: minutes(latencies.at(-1) ?? 0),
    };
  };
  const perServer = byServer.map((latencies, server) => ({ server, ...summary(latencies, unpausedByServer[server]!) }));
  const worst = perServer.reduce((a, b) => (b.p95 > a.p95 ? b : a));
  return {
    mode,
    requests: gate.counts.requests,
    rate_limited: gate.counts.rateLimited,
    rate_limited_share: Math.round((gate.counts.rateLimited / Math.max(1, gate.counts.requests)) * 10_000) / 10_000,
    reads,
    fleet_minutes: summary(
      all,
      unpausedByServer.reduce((a, b) => a + b, 0),
    ),
    worst_server: worst,
    peak_rss_mb: peakRssMb(process.pid) ?? -1,
    wall_seconds: round1((performance.now() - wall) / 1000),
  };
}

function required<T>(value: T | undefined, why: string): T {
  if (value === undefined) throw new Error(why);
  return value;
}
