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
  return {
    /** Runs `change` on the stored bucket (undefined before its first use) and stores what it returns, under the write lock. */
    update<T>(change: (state: PacerBucketRow | undefined) => { state: PacerBucketRow; result: T }): T {
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
    },
    /** The stored bucket, for the doctor and metrics. */
    get: (): PacerBucketRow | undefined => read.get(name),
  };
}

export type PacerBucketRepo = ReturnType<typeof createPacerBucketRepo>;
