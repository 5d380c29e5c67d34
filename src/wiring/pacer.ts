/**
 * The server's one request budget (docs/fleet.md, "One budget per server"): one pacer per
 * process on the plugin's SQLite bucket (migration 025), so `wpp serve`, `wpp worker` and the
 * one-shot commands on one data folder share WPP_SYNC_RATE between them. Every provider call
 * of the process takes its tokens from it.
 */
import type { Config } from '../config.js';
import { leaseAwareStore, readBudget, type BudgetReading } from '../core/fleet-budget.js';
import { createPacer, createSharedBucket, systemClock, type Pacer } from '../core/pacer.js';
import type { Db } from '../db/open.js';
import { createPacerBucketRepo } from '../db/pacer-bucket.repo.js';

/** The lowest rate the pacer learns down to after 429s: a server keeps sending, slowly. */
const PACER_FLOOR_PER_SECOND = 1;

/** The process's pacer, or undefined when WPP_SYNC_RATE is 0 (no limit: nothing paces the provider calls). */
export function wirePacer(db: Db, config: Pick<Config, 'sync'>): Pacer | undefined {
  const ceiling = config.sync.ratePerSecond;
  if (ceiling <= 0) return undefined;
  // While `wpp serve` follows the fleet budget, the bucket paces at the share it leased (core/fleet-budget.ts).
  const source = createSharedBucket(leaseAwareStore(createPacerBucketRepo(db), systemClock.now), {
    floor: Math.min(PACER_FLOOR_PER_SECOND, ceiling),
    ceiling,
  });
  return createPacer({ source, clock: systemClock });
}

/** The data folder's budget as it stands (the doctor's line, the /metrics gauge): read from its bucket, never written. */
export function budgetReader(db: Db, now: () => number = systemClock.now): () => BudgetReading | undefined {
  const bucket = createPacerBucketRepo(db);
  return () => readBudget(bucket.get(), bucket.lease(), now());
}
