/**
 * The fleet budget's lease round (docs/fleet.md, "The fleet budget"), in `wpp serve` only (the
 * process that holds the fleet link): about once a second it claims this server's need in the
 * fleet database and writes the share it gets into the data folder's SQLite bucket, which every
 * process of the data folder paces with. Nothing here waits on a hook or a page; while the fleet
 * database is down the lease is cleared and the server paces itself.
 */
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { AppError, describeError } from '../errors.js';
import {
  createFleetLeaseRound,
  decideFleetRound,
  fleetKeyRules,
  initialKeyState,
  type FleetNeed,
  type FleetRound,
} from '../core/fleet-budget.js';
import type { Pacer } from '../core/pacer.js';
import { readRisk, rulesFor } from '../core/read-schedule.js';
import type { Db } from '../db/open.js';
import { createPacerBucketRepo } from '../db/pacer-bucket.repo.js';
import type { ReadScheduleRepo } from '../db/read-schedule.repo.js';
import { claimFleetShare } from '../fleet/budget.js';
import type { FleetLink } from '../fleet/link.js';
import { withoutFleetPassword } from '../fleet/url.js';
import type { Lifecycle } from '../lifecycle.js';

/** How often the round runs. */
export const ROUND_MS = 1_000;
/** A share holds three rounds without a renewal. */
export const LEASE_MS = 3 * ROUND_MS;
/** Due websites weighed for the server's risk: the earliest due, as the tick weighs them. */
const RISK_SAMPLE = 200;

export interface FleetBudgetDeps {
  fleet: FleetLink | undefined;
  pacer: Pacer | undefined;
  db: Db;
  schedule: ReadScheduleRepo;
  logger: Logger;
  life: Lifecycle;
  now: () => number;
}

/** What this server needs now: its pacer's waiters, its due reads, its most at-risk due website, its bucket's last 429 (the fleet bench's servers too). */
export function needOf(
  deps: Pick<FleetBudgetDeps, 'schedule' | 'now'>,
  pacer: Pacer,
  config: Pick<Config, 'sync'>,
  bucket: ReturnType<typeof createPacerBucketRepo>,
) {
  const rules = rulesFor(config.sync.maxAgeMinutes ?? 60);
  return (): FleetNeed => {
    const at = deps.now();
    const waiting = pacer.waiting();
    const due = deps.schedule.due(at, RISK_SAMPLE);
    const risk = due.reduce((most, website) => Math.max(most, readRisk(website, rules)), 0);
    return {
      urgent: waiting.urgent,
      backlog: waiting.background + deps.schedule.dueCount(at),
      risk,
      limitedAt: bucket.get()?.decreasedAt ?? 0,
    };
  };
}

/**
 * Starts the round when this process has the fleet link and a pacer (WPP_SYNC_RATE > 0);
 * returns the round for tests (undefined when there is none). Stopped with the process.
 */
export function wireFleetBudget(
  config: Pick<Config, 'sync' | 'fleet'>,
  deps: FleetBudgetDeps,
  options: { roundMs?: number } = {},
): (() => Promise<FleetRound | null>) | undefined {
  const { fleet, pacer } = deps;
  if (!fleet || !pacer) return undefined;
  const bucket = createPacerBucketRepo(deps.db);
  const ceiling = config.sync.ratePerSecond;
  const serverId = fleet.identity.serverId;
  const keyRules = fleetKeyRules(config.fleet.keyRate ?? null, ceiling);
  const round = createFleetLeaseRound({
    need: needOf(deps, pacer, config, bucket),
    async exchange(claim) {
      const pool = fleet.pool();
      if (!pool) return null;
      try {
        return await claimFleetShare(
          pool,
          { serverId, urgent: claim.urgent, backlog: claim.backlog, risk: claim.risk, ceiling },
          {
            initial: initialKeyState(keyRules),
            leaseMs: LEASE_MS,
            decide: (input) => decideFleetRound({ ...input, serverId, rateLimited: claim.rateLimited }, { key: keyRules }),
          },
        );
      } catch (error) {
        // The driver's message may quote the URL: never its password (the cause is never logged: describeError reads only the message).
        throw new AppError('UNAVAILABLE', withoutFleetPassword(describeError(error), config.fleet.databaseUrl ?? ''), [], { cause: error });
      }
    },
    lease: {
      set: (lease) => bucket.setLease(lease, deps.now()),
      clear: () => bucket.setLease(null, deps.now()),
    },
    logger: deps.logger.child({ part: 'fleet-budget' }),
    now: deps.now,
    leaseMs: LEASE_MS,
  });
  // One round at a time: a round held up by a slow database is not overlapped by the next.
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    running ??= round()
      .catch((error: unknown) => deps.logger.warn({ reason: describeError(error) }, 'fleet budget round failed'))
      .finally(() => (running = null));
  }, options.roundMs ?? ROUND_MS);
  timer.unref();
  deps.life.onClose(async () => {
    clearInterval(timer);
    await running;
  });
  return round;
}
