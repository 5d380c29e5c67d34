/**
 * One schedule of the detection bench over the simulated period, in this process: see
 * bench/detection.bench.ts for what it simulates and measures. Run compiled, with plain
 * node (lib/detection-child.ts), so its peak RSS is the plugin's and the sandbox's, not a
 * TypeScript loader's.
 */
import http from 'node:http';
import { pino } from 'pino';
import { createEnforcement } from '../../src/core/enforcement.js';
import { createLimitResolver } from '../../src/core/limits.js';
import { dueNow, readTick } from '../../src/core/read-tick.js';
import { DEFAULT_RULES } from '../../src/core/read-schedule.js';
import { createAccountsRepo } from '../../src/db/accounts.repo.js';
import type { Db } from '../../src/db/open.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import { createReadScheduleRepo } from '../../src/db/read-schedule.repo.js';
import { createStatisticsRepo } from '../../src/db/statistics.repo.js';
import { createProviderClient, type ProviderClient } from '../../src/provider/index.js';
import { crossingAt, cumulativeAt, trafficOf, type Kind, type Traffic, type WorldOptions } from './detection-world.js';
import { peakRssMb } from './proc.js';
import { percentileSorted, round1 } from './stats.js';
import { accountOf, domainOf, seedPluginDatabase, seedSandbox } from './sync-seed.js';

const MINUTE = 60_000;
export const START = Date.parse('2026-11-11T00:00:00Z');
export const WARMUP_MS = 45 * MINUTE;
export const TAIL_MS = 45 * MINUTE;

export type Strategy = 'adaptive' | 'round-robin';

export interface Settings {
  n: number;
  users: number;
  limit: number;
  rate: number;
  windowMinutes: number;
}

export interface StrategyReport {
  strategy: Strategy;
  crossings: number;
  /** Crossings not paused by the end of the simulation (their latency counts until the end). */
  unpaused: number;
  latency_minutes: { p50: number; p95: number; max: number };
  /** Latency of the crossings an attack caused (a sudden surge), apart. */
  attack_latency_minutes: { count: number; p50: number; max: number };
  over_limit_hits: { total: number; p95: number; max: number };
  requests: number;
  reads: number;
  peak_rss_mb: number;
  wall_seconds: number;
}

const indexOf = (domain: string) => Number(domain.slice(5, domain.indexOf('.')));

/** The world of a run: the traffic model and the simulated times (the fleet bench's too, with its own tail). */
export function worldOf(settings: Pick<Settings, 'n' | 'limit' | 'windowMinutes'>, tailMs: number = TAIL_MS) {
  const windowEnd = WARMUP_MS + settings.windowMinutes * MINUTE;
  const world: WorldOptions = {
    n: settings.n,
    limit: settings.limit,
    start: START,
    elapsedMs: 10 * 24 * 60 * MINUTE,
    window: { fromMs: WARMUP_MS, toMs: windowEnd },
  };
  return { windowEnd, end: START + windowEnd + tailMs, traffic: (i: number): Traffic => trafficOf(i, world) };
}

/**
 * Seeds a run, from the bench's parent process (so the schedule's process starts with none
 * of the seeding's memory): the sandbox's users, websites and their hits at the start, and
 * the plugin's database at `databaseFile` as a running installation left it (seedHistory).
 */
export async function seedRun(settings: Settings, sandbox: { url: string; partnerKey: string }, databaseFile: string): Promise<void> {
  const { traffic } = worldOf(settings);
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
  const db = openPluginDatabase({ databaseFile });
  try {
    seedPluginDatabase(db, { n: settings.n, users, limit: settings.limit, now: START });
    seedHistory(db, createStatisticsRepo(db), createAccountsRepo(db), settings, traffic);
  } finally {
    db.close();
  }
}

/** One schedule over the simulated period on a seeded run (seedRun); see the module comment. */
export async function simulate(
  strategy: Strategy,
  settings: Settings,
  sandbox: { url: string; partnerKey: string },
  databaseFile: string,
): Promise<StrategyReport> {
  const wall = performance.now();
  const { n, limit, rate } = settings;
  const { windowEnd, end, traffic } = worldOf(settings);
  let now = START;
  const clock = () => now;
  const log = (message: string) => console.error(`[${strategy}] ${message}`);
  const silent = pino({ level: 'silent' });
  const db = openPluginDatabase({ databaseFile });
  try {
    const stats = createStatisticsRepo(db, clock);
    const accounts = createAccountsRepo(db, clock);
    const schedule = createReadScheduleRepo(db);
    log(`started; ${memory()}`);

    // Traffic goes into the sandbox up to the clock as each website is read; a paused website's stops.
    const msPerRequest = 1000 / rate;
    const pushedHits = new Float64Array(n);
    const pushedBlocked = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      pushedHits[i] = traffic(i).initial;
      pushedBlocked[i] = traffic(i).initialBlocked;
    }
    const pausedAt = new Map<number, number>();
    /** Website i's hits up to `at` (or its pause) not yet in the sandbox, as a traffic item; null when none. */
    const accrual = (i: number, at: number) => {
      const upTo = Math.min(at, pausedAt.get(i) ?? Infinity);
      const cumulative = cumulativeAt(traffic(i), upTo);
      const hits = cumulative.hits - (pushedHits[i] as number);
      const blocked = Math.min(hits, Math.max(0, cumulative.blocked - (pushedBlocked[i] as number)));
      if (hits <= 0) return null;
      pushedHits[i] = cumulative.hits;
      pushedBlocked[i] = (pushedBlocked[i] as number) + blocked;
      return { domain: domainOf(i), hits, blocked, category: blocked > 0 ? 'bad_bot' : '' };
    };
    /**
     * Before a tick, the hits of the websites it is about to read, each up to the time its read
     * starts (the tick reads them in this order, one request every 1/rate seconds): one
     * POST /_sandbox/traffic for the tick. The world's doing, not the plugin's: not counted.
     */
    const accrueAhead = async (websites: { domain: string }[], from: number) => {
      const items = websites.flatMap((website, j) => accrual(indexOf(website.domain), from + j * msPerRequest) ?? []);
      if (items.length === 0) return;
      await postJson(`${sandbox.url}/_sandbox/traffic`, sandbox.partnerKey, items);
    };

    let requests = 0;
    let reads = 0;
    const spend = () => {
      requests++;
      now += msPerRequest;
    };
    const client = createProviderClient({ baseUrl: sandbox.url, apiKey: sandbox.partnerKey, timeoutMs: 30_000, logger: silent });
    const provider: ProviderClient = {
      ...client,
      getWebsiteStatistics: (domain, range, options) => {
        spend();
        reads++;
        return client.getWebsiteStatistics(domain, range, options);
      },
      lookupWebsite: (domain) => {
        spend();
        return client.lookupWebsite(domain);
      },
      setWebsiteStatus: (domain, status) => {
        spend();
        if (status === 'paused' && !pausedAt.has(indexOf(domain))) pausedAt.set(indexOf(domain), now);
        return client.setWebsiteStatus(domain, status);
      },
    };
    const enforcement = createEnforcement({ stats, accounts, provider, logger: silent, now: clock, concurrency: 16 });
    const tickDeps = { stats, accounts, schedule, provider, logger: silent, now: clock, enforceAccounts: enforcement.enforceAccounts };

    let cursor = '';
    const nextRoundRobin = (count: number) => {
      const page = stats.managedPage(cursor, count);
      if (page.length < count) page.push(...stats.managedPage('', count - page.length));
      cursor = page.at(-1)?.domain ?? '';
      return page;
    };
    const rules = DEFAULT_RULES;
    for (let tickStart = START, k = 0; tickStart < end; k++) {
      now = tickStart;
      const budget = rate * (strategy === 'adaptive' ? 55 : 60);
      // The adaptive tick picks its websites itself; the same query, on the same state, tells the traffic which.
      const websites = strategy === 'adaptive' ? dueNow(schedule, now + 55_000, budget) : nextRoundRobin(budget);
      await accrueAhead(websites, now);
      await readTick(tickDeps, {
        budget,
        concurrency: 16,
        rules,
        lookaheadMs: 55_000,
        ...(strategy === 'round-robin' ? { websites } : {}),
      });
      tickStart = Math.max(tickStart + MINUTE, now);
      if (k % 30 === 0) log(`minute ${Math.round((tickStart - START) / MINUTE)}: ${reads} reads, ${pausedAt.size} paused; ${memory()}`);
    }

    // The crossings of the window, each with its pause.
    const latencies: number[] = [];
    const attackLatencies: number[] = [];
    const overLimit: number[] = [];
    let unpaused = 0;
    for (let i = 0; i < n; i++) {
      const t = traffic(i);
      const crossed = crossingAt(t, limit, START + windowEnd);
      if (crossed === null || crossed < START + WARMUP_MS) continue;
      const paused = pausedAt.get(i);
      if (paused === undefined) unpaused++;
      const latency = (paused ?? end) - crossed;
      latencies.push(latency);
      if (causedByAttack(t, crossed)) attackLatencies.push(latency);
      overLimit.push(cumulativeAt(t, paused ?? end).hits - limit);
    }
    latencies.sort((a, b) => a - b);
    attackLatencies.sort((a, b) => a - b);
    overLimit.sort((a, b) => a - b);
    const minutes = (ms: number) => round1(ms / MINUTE);
    return {
      strategy,
      crossings: latencies.length,
      unpaused,
      latency_minutes: {
        p50: minutes(percentileSorted(latencies, 50)),
        p95: minutes(percentileSorted(latencies, 95)),
        max: minutes(latencies.at(-1) ?? 0),
      },
      attack_latency_minutes: {
        count: attackLatencies.length,
        p50: minutes(percentileSorted(attackLatencies, 50)),
        max: minutes(attackLatencies.at(-1) ?? 0),
      },
      over_limit_hits: {
        total: overLimit.reduce((sum, hits) => sum + hits, 0),
        p95: percentileSorted(overLimit, 95),
        max: overLimit.at(-1) ?? 0,
      },
      requests,
      reads,
      peak_rss_mb: peakRssMb(process.pid) ?? -1,
      wall_seconds: round1((performance.now() - wall) / 1000),
    };
  } finally {
    db.close();
  }
}

/** Whether the website was under attack when it crossed (the surge pushed it over). */
function causedByAttack(traffic: Traffic, crossed: number): boolean {
  const attack = traffic.segments[1];
  const after = traffic.segments[2];
  return (
    traffic.kind === ('attacked' satisfies Kind) && attack !== undefined && crossed >= attack.from && crossed <= (after?.from ?? Infinity)
  );
}

/**
 * The plugin's state of a running installation: each website read once in the 45 minutes
 * before the start, in domain order (as a full pass at the rate would), its hits up to then
 * counted in the period, and due again from then.
 */
export function seedHistory(
  db: Db,
  stats: ReturnType<typeof createStatisticsRepo>,
  accounts: ReturnType<typeof createAccountsRepo>,
  settings: Pick<Settings, 'n' | 'users'>,
  traffic: (i: number) => Traffic,
  /** The websites this database holds (a server of the fleet bench holds some); default all. */
  only: (i: number) => boolean = () => true,
) {
  const period = createLimitResolver(stats, accounts).periodOf(accountOf(0, settings.users), START);
  const order = Array.from({ length: settings.n }, (_, i) => i)
    .filter(only)
    .sort((a, b) => (domainOf(a) < domainOf(b) ? -1 : 1));
  const n = order.length;
  const latest = db.prepare('INSERT INTO stats_latest (domain, taken_at, total, permitted, blocked, mitigated) VALUES (?, ?, ?, ?, ?, 0)');
  const usage = db.prepare(
    'INSERT INTO usage (domain, period_start, account, hits, permitted, blocked, mitigated, updated_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?)',
  );
  const scheduled = db.prepare('UPDATE read_schedule SET next_read_at = ?, last_read_at = ? WHERE domain = ?');
  db.transaction(() => {
    order.forEach((i, rank) => {
      const t = traffic(i);
      const at = Math.floor(START - WARMUP_MS + (rank / n) * WARMUP_MS);
      const rate = t.segments[0] as Traffic['segments'][number];
      const hits = Math.max(0, Math.floor(t.initial - (rate.hits * (START - at)) / 1000));
      const blocked = Math.min(hits, Math.max(0, Math.floor(t.initialBlocked - (rate.blocked * (START - at)) / 1000)));
      const domain = domainOf(i);
      latest.run(domain, at, hits, hits - blocked, blocked);
      usage.run(domain, period.start, accountOf(i, settings.users), hits, hits - blocked, blocked, at);
      scheduled.run(at, at, domain);
    });
  })();
}

/** Memory now, for the progress lines: RSS, the JS heap and what lives outside it (SQLite, buffers). */
export function memory(): string {
  const m = process.memoryUsage();
  const mb = (bytes: number) => Math.round(bytes / 1048576);
  return `rss ${mb(m.rss)} MB (heap ${mb(m.heapUsed)}/${mb(m.heapTotal)} MB, external ${mb(m.external)} MB)`;
}

/**
 * POSTs JSON with node:http and drains the answer; throws unless 2xx. Not fetch: undici's code
 * and garbage would count in the plugin process's memory, and the plugin itself does not load it.
 */
export function postJson(url: string, key: string, body: unknown): Promise<void> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          (response.statusCode ?? 500) < 300
            ? resolve()
            : reject(new Error(`POST ${url} answered ${response.statusCode}: ${text.slice(0, 300)}`)),
        );
      },
    );
    request.on('error', reject);
    request.end(data);
  });
}
