/**
 * The fleet budget's storage (fleet migration 002, docs/fleet.md "The fleet budget"): one
 * server's round in one transaction. The budget's row is locked (FOR UPDATE), so rounds of
 * different servers follow one another and a share is never handed out twice; the server's
 * claim is written, every claim read, and what core decides (the key's rate, this server's
 * share) written back. The rules are core's, passed in: storage knows none.
 */
import type pg from 'pg';
import type { FleetKeyState, FleetRound, StoredClaim } from '../core/fleet-budget.js';
import { withFleetClient } from './client.js';

/** The budget of the partner key every server shares. */
export const FLEET_PROVIDER_BUDGET = 'provider';

export interface FleetClaimInput {
  serverId: string;
  urgent: number;
  backlog: number;
  risk: number;
  ceiling: number;
}

export interface FleetRoundDecision {
  /** The key's rate before the round, when the budget's row is new. */
  initial: FleetKeyState;
  /** Core's round over the locked row and every claim, at the database's `now`. */
  decide(input: { key: FleetKeyState; claims: StoredClaim[]; now: number }): FleetRound;
  /** How long the share holds, ms. */
  leaseMs: number;
  /**
   * The round's time (epoch ms). Default: the database's clock, which every server shares
   * (theirs may differ). The fleet bench gives its simulated clock.
   */
  now?: number;
}

interface ClaimRow {
  server_id: string;
  urgent: number;
  backlog: number;
  risk: number;
  ceiling: number;
  claimed_at: number;
  share: number;
  lease_until: number;
}

const toClaim = (row: ClaimRow): StoredClaim => ({
  serverId: row.server_id,
  urgent: row.urgent,
  backlog: row.backlog,
  risk: row.risk,
  ceiling: row.ceiling,
  claimedAt: row.claimed_at,
  share: row.share,
  leaseUntil: row.lease_until,
});

/**
 * A claim not renewed for this long belongs to a server that is gone: every round would read it
 * only to drop it as stale (core/fleet-budget.ts's freshClaims), so the round deletes it.
 */
export const RETIRED_CLAIM_MS = 60 * 60 * 1000;

/** Claims this server's need and answers its round, in one transaction; rejects (rolled back) when the database fails. */
export async function claimFleetShare(pool: pg.Pool, claim: FleetClaimInput, decision: FleetRoundDecision): Promise<FleetRound> {
  const budget = FLEET_PROVIDER_BUDGET;
  return withFleetClient(pool, async (client) => {
    await client.query('BEGIN');
    try {
      await client.query(
        'INSERT INTO fleet_budget (name, key_rate, changed_at, decreased_at) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING',
        [budget, decision.initial.keyRate, decision.initial.changedAt, decision.initial.decreasedAt],
      );
      const key = await client.query<{ key_rate: number; changed_at: number; decreased_at: number; now: number }>(
        `SELECT key_rate, changed_at, decreased_at, (extract(epoch FROM clock_timestamp()) * 1000)::double precision AS now
         FROM fleet_budget WHERE name = $1 FOR UPDATE`,
        [budget],
      );
      const row = key.rows[0];
      if (!row) throw new Error('the fleet budget row is missing');
      const now = decision.now ?? row.now;
      await client.query(
        `INSERT INTO fleet_budget_claims (budget, server_id, urgent, backlog, risk, ceiling, claimed_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (budget, server_id) DO UPDATE SET urgent = EXCLUDED.urgent, backlog = EXCLUDED.backlog, risk = EXCLUDED.risk,
           ceiling = EXCLUDED.ceiling, claimed_at = EXCLUDED.claimed_at`,
        [budget, claim.serverId, claim.urgent, claim.backlog, claim.risk, claim.ceiling, now],
      );
      // A server retired for good (or gone longer than a maintenance) leaves its claim behind: dropped here, it comes back with its next round.
      await client.query('DELETE FROM fleet_budget_claims WHERE budget = $1 AND claimed_at < $2 AND lease_until < $2', [
        budget,
        now - RETIRED_CLAIM_MS,
      ]);
      const claims = await client.query<ClaimRow>(
        'SELECT server_id, urgent, backlog, risk, ceiling, claimed_at, share, lease_until FROM fleet_budget_claims WHERE budget = $1',
        [budget],
      );
      const round = decision.decide({
        key: { keyRate: row.key_rate, changedAt: row.changed_at, decreasedAt: row.decreased_at },
        claims: claims.rows.map(toClaim),
        now,
      });
      await client.query('UPDATE fleet_budget SET key_rate = $2, changed_at = $3, decreased_at = $4 WHERE name = $1', [
        budget,
        round.key.keyRate,
        round.key.changedAt,
        round.key.decreasedAt,
      ]);
      await client.query('UPDATE fleet_budget_claims SET share = $3, lease_until = $4 WHERE budget = $1 AND server_id = $2', [
        budget,
        claim.serverId,
        round.share,
        now + decision.leaseMs,
      ]);
      await client.query('COMMIT');
      return round;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}
