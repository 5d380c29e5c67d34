/**
 * The doctor's share of the server's request budget (docs/fleet.md, "One budget per server"):
 * `wpp doctor` run beside a busy `wpp serve` takes its probe's token from the same SQLite
 * bucket, with urgent priority (an operator is waiting), so it adds no unpaced call to the key
 * and honours a `Retry-After` the server met. Nothing when the budget is off (WPP_SYNC_RATE=0)
 * or the data folder has no database with a bucket yet: the doctor never creates one.
 */
import { existsSync } from 'node:fs';
import type { Config } from '../config.js';
import { openDatabase } from '../db/open.js';
import { describeError } from '../errors.js';
import type { BudgetReading } from '../core/fleet-budget.js';
import type { ProviderBudget } from '../provider/index.js';
import { budgetReader, wirePacer } from '../wiring/pacer.js';

export interface DoctorBudget {
  budget: ProviderBudget;
  /** When the token was granted (performance.now()): the probe's time is counted from then, not from the wait. */
  grantedAt(): number | undefined;
  /** Why the probe went unpaced after all (the bucket could not be written, say), for its line. */
  unpaced(): string | undefined;
  /** What the budget sends at and why, for the provider check's line (read before the database closes). */
  describe(): string | undefined;
  close(): void;
}

export function openDoctorBudget(config: Config): DoctorBudget | undefined {
  if (config.sync.ratePerSecond <= 0 || !existsSync(config.databaseFile)) return undefined;
  const db = openDatabase(config.databaseFile);
  // A database from before the bucket (migration 025) is the database check's to report, not a reason to fail the probe.
  const hasBucket = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pacer_bucket'").get() !== undefined;
  const pacer = hasBucket ? wirePacer(db, config) : undefined;
  if (!pacer) {
    db.close();
    return undefined;
  }
  let grantedAt: number | undefined;
  let unpaced: string | undefined;
  const reading = budgetReader(db);
  return {
    budget: {
      async take(priority, signal) {
        try {
          await pacer.take(priority, signal);
        } catch (error) {
          if (signal?.aborted) throw error;
          // The doctor reports; a bucket it may not write (run as another user) must not hide the provider's answer.
          unpaced = describeError(error);
        }
        grantedAt = performance.now();
      },
      report: (outcome) => pacer.report(outcome),
    },
    grantedAt: () => grantedAt,
    unpaced: () => unpaced,
    describe() {
      try {
        return describeBudget(reading());
      } catch {
        // A database from before the lease's columns (migration 029): the database check reports it; the probe's line goes without.
        return undefined;
      }
    },
    close: () => db.close(),
  };
}

/** "the request budget allows 38.5 requests a second (learned from the provider's answers)", or the fleet's share with its lease's end. */
export function describeBudget(reading: BudgetReading | undefined): string | undefined {
  if (!reading) return undefined;
  const rate = `the request budget allows ${Math.round(reading.ratePerSecond * 10) / 10} requests a second`;
  if (reading.source === 'learned') return `${rate} (learned from the provider's answers)`;
  return `${rate} (this server's share of the key from the fleet database, leased until ${new Date(reading.leaseUntil).toISOString()})`;
}
