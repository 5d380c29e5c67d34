/**
 * The pacer's shared bucket (migration 025): one row per budget, read and written in one
 * IMMEDIATE transaction per change so that processes on the same data folder never both spend
 * the same tokens. The rules of the bucket are core's (src/core/pacer.ts); this only stores.
 */
import type { Db } from './open.js';

/** The stored bucket, in the shape core's pacer keeps it. */
export interface PacerBucketRow {
  rate: number;
  tokens: number;
  refilledAt: number;
  blockedUntil: number;
  decreasedAt: number;
}

/** The fleet budget's lease on the bucket (migration 029): a share of the key's rate, until when (epoch ms). */
export interface PacerLeaseRow {
  rate: number;
  until: number;
}

/** The bucket every provider call of the plugin's key takes from. */
export const PROVIDER_BUDGET = 'provider';

export function createPacerBucketRepo(db: Db, name: string = PROVIDER_BUDGET) {
  const read = db.prepare<[string], PacerBucketRow>(
    `SELECT rate, tokens, refilled_at AS refilledAt, blocked_until AS blockedUntil, decreased_at AS decreasedAt
     FROM pacer_bucket WHERE name = ?`,
  );
  const write = db.prepare<[string, number, number, number, number, number]>(
    `INSERT INTO pacer_bucket (name, rate, tokens, refilled_at, blocked_until, decreased_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET rate = excluded.rate, tokens = excluded.tokens, refilled_at = excluded.refilled_at,
       blocked_until = excluded.blocked_until, decreased_at = excluded.decreased_at`,
  );
  const readLease = db.prepare<[string], { rate: number | null; until: number }>(
    'SELECT lease_rate AS rate, lease_until AS until FROM pacer_bucket WHERE name = ?',
  );
  // A bucket not used yet gets its row with the lease: empty, refilled from now at the lease's rate.
  const writeLease = db.prepare<[{ name: string; rate: number | null; until: number; now: number }]>(
    `INSERT INTO pacer_bucket (name, rate, tokens, refilled_at, lease_rate, lease_until) VALUES (@name, COALESCE(@rate, 1), 0, @now, @rate, @until)
     ON CONFLICT (name) DO UPDATE SET lease_rate = excluded.lease_rate, lease_until = excluded.lease_until`,
  );
  const update = <T>(change: (state: PacerBucketRow | undefined) => { state: PacerBucketRow; result: T }): T => {
    const transaction = db.transaction(() => {
      const { state, result } = change(read.get(name));
      write.run(
        name,
        state.rate,
        Math.max(0, state.tokens),
        Math.round(state.refilledAt),
        Math.round(state.blockedUntil),
        Math.round(state.decreasedAt),
      );
      return result;
    });
    return transaction.immediate();
  };
  const leaseOf = (): PacerLeaseRow | null => {
    const row = readLease.get(name);
    return row && row.rate !== null ? { rate: row.rate, until: row.until } : null;
  };
  return {
    /** Runs `change` on the stored bucket (undefined before its first use) and stores what it returns, under the write lock. */
    update,
    /** As `update`, `change` also seeing the fleet budget's lease (null: none), read in the same transaction. */
    updateLeased: <T>(
      change: (state: PacerBucketRow | undefined, lease: PacerLeaseRow | null) => { state: PacerBucketRow; result: T },
    ): T => update((state) => change(state, leaseOf())),
    /** Writes the fleet budget's lease (`wpp serve`'s lease round), or clears it (null): every process reads it with its next batch. */
    setLease(lease: PacerLeaseRow | null, now: number): void {
      writeLease.run({ name, rate: lease?.rate ?? null, until: lease ? Math.round(lease.until) : 0, now: Math.round(now) });
    },
    /** The lease as stored, for the doctor and tests. */
    lease: leaseOf,
    /** The stored bucket, for the doctor and metrics. */
    get: (): PacerBucketRow | undefined => read.get(name),
  };
}

export type PacerBucketRepo = ReturnType<typeof createPacerBucketRepo>;
