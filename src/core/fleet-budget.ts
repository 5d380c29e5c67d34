/**
 * The fleet budget (docs/fleet.md, "The fleet budget"): with a fleet database, the partner
 * key's rate is handed out across the panel servers by need. Each server's long-running
 * process claims what it needs about once a second (urgent calls waiting, its background
 * backlog, how at risk its most at-risk due website is) and gets back its share of the key's
 * rate as a short LEASE, which it writes into its SQLite bucket so every process of its data
 * folder (wpp serve, wpp worker, one-shot commands) paces at that share without ever talking to
 * PostgreSQL. A lease that is not renewed (the database down, the server gone) runs out within
 * seconds and the server paces itself again by its own AIMD (src/core/pacer.ts).
 *
 * Pure rules over plain values (the database's clock is a parameter) and the lease round;
 * the PostgreSQL transaction is src/fleet/budget.ts's, the SQLite row src/db/pacer-bucket.repo.ts's.
 */
import { describeError } from '../errors.js';
import type { BucketState, BucketStore } from './pacer.js';

/** One server's claim, as the fleet database holds it. */
export interface FleetClaim {
  serverId: string;
  /** Urgent calls a second it needs now: waiting for a token (enforcement, a click, a new domain, reads of websites at risk). */
  urgent: number;
  /** Background calls it could send now: waiting for a token, and statistics reads due. */
  backlog: number;
  /** How at risk its most at-risk due website is: 0 (none due, or only quiet ones) to 1 (read every minute, at its limit). */
  risk: number;
  /** The most it sends (its WPP_SYNC_RATE), requests a second: no share above it. */
  ceiling: number;
  /** When it claimed, epoch ms, by the fleet database's clock. */
  claimedAt: number;
}

export interface AllocationRules {
  /** A claim older than this is a server gone (or cut off): it gets nothing. Default 3 s (three missed rounds). */
  staleMs: number;
  /** What every fresh server gets first, requests a second, so it keeps talking to the provider. Default 1 (less when the key cannot give it to all). */
  floorPerServer: number;
}

export const DEFAULT_ALLOCATION: AllocationRules = { staleMs: 3_000, floorPerServer: 1 };

/** Fresh claims only: a server that stopped claiming holds no share. */
export const freshClaims = <C extends FleetClaim>(claims: C[], now: number, rules: AllocationRules = DEFAULT_ALLOCATION): C[] =>
  claims.filter((claim) => now - claim.claimedAt <= rules.staleMs && claim.ceiling > 0);

/**
 * Each fresh server's share of the key's rate, requests a second; the sum never exceeds
 * `keyRate` and no share exceeds its server's ceiling. In order, each step from what is left:
 * 1. a floor each (the key's rate split evenly when it cannot give the floor to all);
 * 2. urgent needs, in proportion to them when they are more than what is left;
 * 3. the backlogs of servers with websites at risk, the most at risk first;
 * 4. the other backlogs, in proportion to them;
 * 5. what no one needs now, evenly (up to the ceilings): headroom for the next second's work.
 */
export function allocateFleetRate(
  keyRate: number,
  claims: FleetClaim[],
  now: number,
  rules: AllocationRules = DEFAULT_ALLOCATION,
): Map<string, number> {
  const fresh = freshClaims(claims, now, rules);
  const shares = new Map<string, number>(fresh.map((claim) => [claim.serverId, 0]));
  let left = Math.max(0, keyRate);
  const give = (claim: FleetClaim, want: number) => {
    const room = Math.min(want, claim.ceiling - (shares.get(claim.serverId) ?? 0), left);
    if (!(room > 0)) return;
    shares.set(claim.serverId, (shares.get(claim.serverId) ?? 0) + room);
    left -= room;
  };
  const unmet = (claim: FleetClaim) => Math.max(0, claim.urgent + claim.backlog - (shares.get(claim.serverId) ?? 0));
  /** Gives each claim its weight, or its part of what is left in proportion to the weights when they add up to more. */
  const proportional = (among: FleetClaim[], weight: (claim: FleetClaim) => number) => {
    const weights = among.map(weight);
    const total = weights.reduce((sum, w) => sum + w, 0);
    if (!(total > 0)) return;
    const scale = Math.min(1, left / total);
    among.forEach((claim, i) => give(claim, (weights[i] ?? 0) * scale));
  };

  const floor = fresh.length > 0 ? Math.min(rules.floorPerServer, keyRate / fresh.length) : 0;
  for (const claim of fresh) give(claim, floor);
  proportional(fresh, (claim) => Math.max(0, claim.urgent - (shares.get(claim.serverId) ?? 0)));
  const atRisk = fresh.filter((claim) => claim.risk > 0).sort((a, b) => b.risk - a.risk || b.backlog - a.backlog);
  for (const claim of atRisk) give(claim, unmet(claim));
  proportional(fresh, unmet);
  // Water-filling: what a server at its ceiling cannot take goes to the others.
  for (let open = fresh.filter((c) => (shares.get(c.serverId) ?? 0) < c.ceiling); left > 1e-9 && open.length > 0;) {
    const each = left / open.length;
    for (const claim of open) give(claim, each);
    open = open.filter((c) => (shares.get(c.serverId) ?? 0) < c.ceiling - 1e-9);
  }
  return shares;
}

/** The key's rate as the fleet learned it (one row in the fleet database). */
export interface FleetKeyState {
  /** Requests a second the whole fleet may send on the key. */
  keyRate: number;
  /** When the rate was last brought up to date (an increase accrues from then), epoch ms by the database's clock. */
  changedAt: number;
  /** When it was last decreased (0: never). */
  decreasedAt: number;
}

export interface FleetKeyRules {
  /** The key's rate the provider set (WPP_FLEET_KEY_RATE): the most ever handed out; null: learned only. */
  configured: number | null;
  /** Where a fleet without a configured rate starts: the first server's WPP_SYNC_RATE. */
  initial: number;
  /** The least the fleet keeps sending, requests a second. Default 1. */
  floor: number;
  /** What a second of demand above the rate adds to it. Default 1. */
  increasePerSecond: number;
  /** What a 429 met by any server multiplies it by. Default 0.7 (the fleet's rate is shared: milder than one server's 0.5). */
  decreaseFactor: number;
  /** 429s within this long after a decrease (answers to calls sent before it) do not decrease again. Default 2 s: a round's delay plus a second. */
  decreaseHoldMs: number;
}

export const fleetKeyRules = (configured: number | null, initial: number): FleetKeyRules => ({
  configured,
  initial: configured ?? initial,
  floor: 1,
  increasePerSecond: 1,
  decreaseFactor: 0.7,
  decreaseHoldMs: 2_000,
});

export const initialKeyState = (rules: FleetKeyRules): FleetKeyState => ({ keyRate: rules.initial, changedAt: 0, decreasedAt: 0 });

/**
 * AIMD on the fleet's key rate, one round at a time: a 429 any server met since its last round
 * lowers it for all (once per hold); demand above it raises it, by `increasePerSecond` a
 * second, up to the configured rate; no demand above it, no increase (an idle fleet learns
 * nothing about a higher rate).
 */
export function nextKeyState(
  state: FleetKeyState,
  signal: { rateLimited: boolean; demand: number },
  now: number,
  rules: FleetKeyRules,
): FleetKeyState {
  const ceiling = rules.configured ?? Number.POSITIVE_INFINITY;
  const keyRate = Math.min(ceiling, state.keyRate);
  if (signal.rateLimited && (state.decreasedAt === 0 || now - state.decreasedAt >= rules.decreaseHoldMs)) {
    return { keyRate: Math.max(rules.floor, keyRate * rules.decreaseFactor), changedAt: now, decreasedAt: now };
  }
  const elapsed = state.changedAt === 0 ? 0 : Math.max(0, now - state.changedAt) / 1000;
  const raised = signal.demand > keyRate ? Math.min(ceiling, keyRate + rules.increasePerSecond * elapsed) : keyRate;
  return { keyRate: Math.max(rules.floor, raised), changedAt: now, decreasedAt: state.decreasedAt };
}

/**
 * The part of the key's rate the fleet hands out: calls sent evenly at the full rate arrive
 * unevenly (network and scheduling jitter), and the provider's own bucket has no slack left
 * for that; 5% spare is what keeps 429s to about none (test/integration/fleet-budget.test.ts).
 */
export const HAND_OUT = 0.95;

/** A claim as stored, with the share it was last handed and until when (the database's clock). */
export interface StoredClaim extends FleetClaim {
  share: number;
  leaseUntil: number;
}

export interface FleetRound {
  key: FleetKeyState;
  /** This server's share, requests a second. */
  share: number;
  /** Fresh servers sharing the key, this one included. */
  servers: number;
}

/**
 * One server's round, inside the fleet database's transaction (every claim and the key row
 * locked): the key's rate after this server's news, the allocation over the fresh claims, and
 * this server's share of it, never more than what the other servers' unexpired leases leave
 * (so a share moving from one server to another is given only once the first has renewed at
 * its lower share: the tokens are never handed out twice).
 */
export function decideFleetRound(
  input: { key: FleetKeyState; claims: StoredClaim[]; serverId: string; rateLimited: boolean; now: number },
  rules: { key: FleetKeyRules; allocation?: AllocationRules; handOut?: number },
): FleetRound {
  const { claims, serverId, now } = input;
  const allocation = rules.allocation ?? DEFAULT_ALLOCATION;
  const fresh = freshClaims(claims, now, allocation);
  const demand = fresh.reduce((sum, claim) => sum + claim.urgent + claim.backlog, 0);
  const key = nextKeyState(input.key, { rateLimited: input.rateLimited, demand }, now, rules.key);
  const handedOut = key.keyRate * (rules.handOut ?? HAND_OUT);
  const shares = allocateFleetRate(handedOut, fresh, now, allocation);
  const othersLeased = fresh
    .filter((claim) => claim.serverId !== serverId && claim.leaseUntil > now)
    .reduce((sum, claim) => sum + claim.share, 0);
  const share = Math.max(0, Math.min(shares.get(serverId) ?? 0, handedOut - othersLeased));
  return { key, share, servers: fresh.length };
}

/** A share of the key's rate written into the server's SQLite bucket, until `until` (epoch ms, this machine's clock). */
export interface BucketLease {
  rate: number;
  until: number;
}

/**
 * What the server's request budget sends at, as an operator reads it (the doctor, /metrics):
 * the fleet's share while a lease runs, else the rate its own AIMD has learned. Undefined
 * before the budget's first use (no bucket stored yet).
 */
export type BudgetReading = { ratePerSecond: number } & ({ source: 'learned' } | { source: 'fleet'; leaseUntil: number });

export function readBudget(stored: { rate: number } | undefined, lease: BucketLease | null, now: number): BudgetReading | undefined {
  if (lease && lease.until > now) return { ratePerSecond: lease.rate, source: 'fleet', leaseUntil: lease.until };
  return stored ? { ratePerSecond: stored.rate, source: 'learned' } : undefined;
}

/** The SQLite bucket with its lease: `change` sees the stored state and the lease, in one write transaction. */
export interface LeasedBucketStore {
  updateLeased<T>(change: (state: BucketState | undefined, lease: BucketLease | null) => { state: BucketState; result: T }): T;
}

/**
 * The bucket store every process of the data folder paces with: while a lease runs, the
 * bucket's rate is the lease's (AIMD's changes to it are not kept: the fleet learns the key's
 * rate; a 429 still empties the bucket until Retry-After and is recorded for the fleet); once
 * it has run out, the bucket goes on from the last share by its own AIMD.
 */
export function leaseAwareStore(store: LeasedBucketStore, now: () => number): BucketStore {
  return {
    update: (change) =>
      store.updateLeased((stored, lease) => {
        const at = now();
        if (!lease || lease.until <= at) return change(stored);
        const outcome = change(stored && leasedBucket(stored, lease, at));
        return { state: { ...outcome.state, rate: lease.rate }, result: outcome.result };
      }),
  };
}

/**
 * Under a lease, a server's burst is half a second of its share, not the second a server alone
 * keeps: the servers' bursts then add up to half a second of the key's rate, and calls sent at
 * once by several servers (each with its burst saved up) leave the provider's bucket slack.
 */
const LEASE_BURST_SECONDS = 0.5;

/**
 * The rate a leased bucket tells its waiters to wait by, at least: a share below it (a server
 * whose new share waits for the others' leases to shrink: 0 for a round) would have them wait
 * many seconds for a token, and not notice the larger share the next round brings.
 */
const LEASE_WAIT_RATE = 1;

/**
 * The stored bucket refilled to now at the lease's rate with the lease's burst, so the pacer's
 * own refill adds nothing; shown at LEASE_WAIT_RATE at least, which only shortens the wait it
 * computes (the lease's rate is written back after).
 */
function leasedBucket(stored: BucketState, lease: BucketLease, at: number): BucketState {
  const burst = Math.max(1, lease.rate * LEASE_BURST_SECONDS);
  const rate = Math.max(lease.rate, LEASE_WAIT_RATE);
  if (at <= stored.refilledAt) return { ...stored, rate, tokens: Math.min(stored.tokens, burst) };
  const tokens = Math.min(burst, stored.tokens + ((at - stored.refilledAt) / 1000) * lease.rate);
  return { ...stored, rate, tokens, refilledAt: at };
}

/** What this server needs, as its long-running process sees it. */
export interface FleetNeed {
  urgent: number;
  backlog: number;
  risk: number;
  /** When its bucket last met a 429 (the bucket's last decrease, 0: never), this machine's clock. */
  limitedAt: number;
}

export interface FleetLeaseDeps {
  need(): FleetNeed;
  /** Claims in the fleet database and answers this server's round; null while the fleet link is not in; rejects when the database fails. */
  exchange(claim: Omit<FleetNeed, 'limitedAt'> & { rateLimited: boolean }): Promise<FleetRound | null>;
  lease: { set(lease: BucketLease): void; clear(): void };
  logger: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
  now(): number;
  /** How long a share holds without a renewal. Default 3 s: three rounds. */
  leaseMs?: number;
}

/** The smallest lease written (the row's rate must be positive): a share of 0, one request in 100 s. */
const MIN_LEASE_RATE = 0.01;

/**
 * One lease round a second (the caller's timer): claims, writes the share into the bucket;
 * when the fleet database fails or the link is not in, clears the lease at once (the bucket
 * paces itself from the last share) and says so once, and again once when the fleet is back.
 */
export function createFleetLeaseRound(deps: FleetLeaseDeps) {
  const leaseMs = deps.leaseMs ?? 3_000;
  let following: boolean | null = null;
  // The 429s met before the first round are older news: only later ones are reported.
  let reportedLimit: number | null = null;
  return async function round(): Promise<FleetRound | null> {
    const need = deps.need();
    reportedLimit ??= need.limitedAt;
    let answer: FleetRound | null = null;
    let failure: unknown = null;
    try {
      answer = await deps.exchange({
        urgent: need.urgent,
        backlog: need.backlog,
        risk: need.risk,
        rateLimited: need.limitedAt > reportedLimit,
      });
    } catch (error) {
      failure = error;
    }
    if (!answer) {
      deps.lease.clear();
      // Not joined yet at the start is no news (the link says so itself if the database is down); losing the fleet is.
      if (following === true || (following === null && failure !== null)) {
        const reason = failure === null ? 'the fleet database is not joined yet' : describeError(failure);
        deps.logger.warn({ reason }, 'fleet budget unavailable: this server paces itself (its own AIMD) meanwhile');
      }
      if (following === true || failure !== null) following = false;
      return null;
    }
    reportedLimit = Math.max(reportedLimit, need.limitedAt);
    deps.lease.set({ rate: Math.max(MIN_LEASE_RATE, answer.share), until: deps.now() + leaseMs });
    if (following !== true)
      deps.logger.info(
        { share: answer.share, keyRate: answer.key.keyRate, servers: answer.servers },
        'fleet budget joined: this server follows its share',
      );
    following = true;
    return answer;
  };
}
