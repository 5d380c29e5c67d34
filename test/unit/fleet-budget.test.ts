/**
 * The fleet budget's rules (src/core/fleet-budget.ts, docs/fleet.md "The fleet budget"): how the
 * key's rate is handed out by need, how the fleet learns the key's rate, and how a lease paces
 * the server's SQLite bucket.
 */
import { describe, expect, it } from 'vitest';
import {
  allocateFleetRate,
  createFleetLeaseRound,
  decideFleetRound,
  fleetKeyRules,
  initialKeyState,
  leaseAwareStore,
  nextKeyState,
  type BucketLease,
  type FleetClaim,
  type FleetRound,
  type StoredClaim,
} from '../../src/core/fleet-budget.js';
import { createSharedBucket, type BucketState } from '../../src/core/pacer.js';
import { loadConfig } from '../../src/config.js';

const NOW = 1_000_000;
const claim = (serverId: string, need: Partial<FleetClaim> = {}): FleetClaim => ({
  serverId,
  urgent: 0,
  backlog: 0,
  risk: 0,
  ceiling: 40,
  claimedAt: NOW,
  ...need,
});
const total = (shares: Map<string, number>) => [...shares.values()].reduce((sum, share) => sum + share, 0);

describe('allocateFleetRate', () => {
  it('gives a lone server the whole rate, up to its ceiling', () => {
    expect(allocateFleetRate(20, [claim('a')], NOW).get('a')).toBeCloseTo(20);
    expect(allocateFleetRate(20, [claim('a', { backlog: 500 })], NOW).get('a')).toBeCloseTo(20);
    expect(allocateFleetRate(50, [claim('a', { ceiling: 30 })], NOW).get('a')).toBeCloseTo(30);
  });

  it("never hands out more than the key's rate, whatever the claims", () => {
    const mixes: FleetClaim[][] = [
      [claim('a', { urgent: 100 }), claim('b', { urgent: 100 }), claim('c', { backlog: 1000, risk: 1 })],
      [claim('a', { backlog: 3 }), claim('b', { backlog: 0.5, risk: 0.2 }), claim('c')],
      Array.from({ length: 200 }, (_, i) => claim(`s${i}`, { urgent: i % 3, backlog: i, risk: (i % 7) / 7 })),
      Array.from({ length: 50 }, (_, i) => claim(`t${i}`, { ceiling: 1 + (i % 4) })),
    ];
    for (const keyRate of [1, 7.5, 20, 50, 400])
      for (const claims of mixes) {
        const shares = allocateFleetRate(keyRate, claims, NOW);
        expect(total(shares)).toBeLessThanOrEqual(keyRate + 1e-9);
        for (const c of claims) expect(shares.get(c.serverId)!).toBeLessThanOrEqual(c.ceiling + 1e-9);
        for (const share of shares.values()) expect(share).toBeGreaterThan(0);
      }
  });

  it('serves urgent needs before any backlog, however at risk', () => {
    const shares = allocateFleetRate(20, [claim('urgent', { urgent: 12 }), claim('risky', { backlog: 200, risk: 1 }), claim('idle')], NOW);
    // Floors (1 each), then the 11 urgent calls it still needs, then the at-risk backlog gets the rest.
    expect(shares.get('urgent')).toBeCloseTo(12);
    expect(shares.get('risky')).toBeCloseTo(7);
    expect(shares.get('idle')).toBeCloseTo(1);
  });

  it('splits urgent needs in proportion when they exceed the rate', () => {
    const shares = allocateFleetRate(20, [claim('a', { urgent: 30 }), claim('b', { urgent: 10 })], NOW);
    expect(total(shares)).toBeCloseTo(20);
    // A floor each (1), then the 18 left in proportion to what each still needs (29 and 9).
    expect(shares.get('a')).toBeCloseTo(1 + (18 * 29) / 38);
    expect(shares.get('b')).toBeCloseTo(1 + (18 * 9) / 38);
  });

  it('gives the backlog of the server with the most at-risk websites first, wherever it is', () => {
    const claims = [
      claim('quiet', { backlog: 30, risk: 0 }),
      claim('near', { backlog: 30, risk: 0.5 }),
      claim('nearest', { backlog: 12, risk: 0.95 }),
    ];
    const shares = allocateFleetRate(20, claims, NOW);
    expect(shares.get('nearest')).toBeCloseTo(12);
    expect(shares.get('near')).toBeCloseTo(20 - 12 - 1);
    expect(shares.get('quiet')).toBeCloseTo(1);
  });

  it('splits the remaining backlog in proportion, and what no one needs evenly', () => {
    const byBacklog = allocateFleetRate(23, [claim('a', { backlog: 40 }), claim('b', { backlog: 10 }), claim('c')], NOW);
    // After the floors, the 20 left in proportion to what each still needs (39 and 9).
    expect(byBacklog.get('a')).toBeCloseTo(1 + (20 * 39) / 48);
    expect(byBacklog.get('b')).toBeCloseTo(1 + (20 * 9) / 48);
    expect(byBacklog.get('c')).toBeCloseTo(1);
    const spare = allocateFleetRate(30, [claim('a', { backlog: 4 }), claim('b'), claim('c')], NOW);
    // a gets the 4 it needs, then the 24 no one needs are split evenly between the three.
    expect(spare.get('a')).toBeCloseTo(4 + 8);
    expect(spare.get('b')).toBeCloseTo(9);
    expect(spare.get('c')).toBeCloseTo(9);
    expect(total(spare)).toBeCloseTo(30);
  });

  it('drops stale claims: a server that stopped claiming holds nothing', () => {
    const shares = allocateFleetRate(
      20,
      [claim('alive', { backlog: 5 }), claim('gone', { backlog: 100, risk: 1, claimedAt: NOW - 3_001 })],
      NOW,
    );
    expect([...shares.keys()]).toEqual(['alive']);
    expect(shares.get('alive')).toBeCloseTo(20);
  });

  it('splits the key evenly when it cannot give every server its floor', () => {
    const shares = allocateFleetRate(2, [claim('a', { urgent: 5 }), claim('b'), claim('c'), claim('d')], NOW);
    for (const id of ['a', 'b', 'c', 'd']) expect(shares.get(id)).toBeCloseTo(0.5);
  });
});

describe("the fleet's key rate", () => {
  const rules = fleetKeyRules(null, 40);

  it('starts at the configured rate, else at the first server’s WPP_SYNC_RATE', () => {
    expect(initialKeyState(fleetKeyRules(25, 40)).keyRate).toBe(25);
    expect(initialKeyState(rules).keyRate).toBe(40);
  });

  it('is lowered for all by a 429 any server met, once per hold', () => {
    const lowered = nextKeyState({ keyRate: 40, changedAt: NOW - 1000, decreasedAt: 0 }, { rateLimited: true, demand: 100 }, NOW, rules);
    expect(lowered.keyRate).toBeCloseTo(28);
    const again = nextKeyState(lowered, { rateLimited: true, demand: 100 }, NOW + 500, rules);
    expect(again.keyRate).toBeGreaterThanOrEqual(28);
    expect(nextKeyState(lowered, { rateLimited: true, demand: 100 }, NOW + 2_000, rules).keyRate).toBeCloseTo(19.6);
  });

  it('rises by a request a second per second only while the fleet asks for more, never above the configured rate', () => {
    const state = { keyRate: 20, changedAt: NOW - 3000, decreasedAt: 0 };
    expect(nextKeyState(state, { rateLimited: false, demand: 50 }, NOW, rules).keyRate).toBeCloseTo(23);
    expect(nextKeyState(state, { rateLimited: false, demand: 10 }, NOW, rules).keyRate).toBe(20);
    expect(nextKeyState(state, { rateLimited: false, demand: 50 }, NOW, fleetKeyRules(21, 40)).keyRate).toBe(21);
    expect(
      nextKeyState({ keyRate: 30, changedAt: NOW, decreasedAt: 0 }, { rateLimited: false, demand: 0 }, NOW, fleetKeyRules(21, 40)).keyRate,
    ).toBe(21);
  });
});

describe('decideFleetRound', () => {
  const stored = (serverId: string, need: Partial<StoredClaim> = {}): StoredClaim => ({
    ...claim(serverId),
    share: 0,
    leaseUntil: 0,
    ...need,
  });

  it("never gives a share the other servers' unexpired leases still hold", () => {
    // b held 15 until its next renewal; a now needs more, but gets only what b's lease leaves.
    const claims = [stored('a', { urgent: 18 }), stored('b', { share: 15, leaseUntil: NOW + 2000 })];
    const round = decideFleetRound(
      { key: { keyRate: 20, changedAt: NOW, decreasedAt: 0 }, claims, serverId: 'a', rateLimited: false, now: NOW },
      { key: fleetKeyRules(20, 40), handOut: 1 },
    );
    expect(round.share).toBeCloseTo(5);
    expect(round.servers).toBe(2);
    // Once b's lease has run out, a gets its allocation.
    const later = decideFleetRound(
      { key: round.key, claims: claims.map((c) => ({ ...c, claimedAt: NOW + 2500 })), serverId: 'a', rateLimited: false, now: NOW + 2500 },
      { key: fleetKeyRules(20, 40), handOut: 1 },
    );
    expect(later.share).toBeCloseTo(18.5);
  });

  it("gives a server nothing the others' leases still hold, however much it needs", () => {
    const claims = [stored('a', { urgent: 30 }), stored('b', { share: 19, leaseUntil: NOW + 2000 })];
    const round = decideFleetRound(
      { key: { keyRate: 20, changedAt: NOW, decreasedAt: 0 }, claims, serverId: 'a', rateLimited: false, now: NOW },
      { key: fleetKeyRules(20, 40) },
    );
    expect(round.share).toBe(0);
  });

  it("hands out 95% of the key's rate: the provider's bucket needs slack for calls that arrive unevenly", () => {
    const round = decideFleetRound(
      {
        key: { keyRate: 20, changedAt: NOW, decreasedAt: 0 },
        claims: [stored('a', { backlog: 50 })],
        serverId: 'a',
        rateLimited: false,
        now: NOW,
      },
      { key: fleetKeyRules(20, 40) },
    );
    expect(round.share).toBeCloseTo(19);
    expect(round.key.keyRate).toBe(20);
  });
});

describe('a lease on the SQLite bucket', () => {
  /** A store in memory with a lease beside the bucket, as the repository keeps them in one row. */
  const memoryStore = () => {
    let state: BucketState | undefined;
    let lease: BucketLease | null = null;
    return {
      setLease: (next: BucketLease | null) => void (lease = next),
      state: () => state,
      updateLeased<T>(change: (s: BucketState | undefined, l: BucketLease | null) => { state: BucketState; result: T }): T {
        const outcome = change(state, lease);
        state = outcome.state;
        return outcome.result;
      },
    };
  };

  it("paces at the lease's rate while it runs, and by its own AIMD from the last share once it runs out", () => {
    let now = NOW;
    const store = memoryStore();
    const bucket = createSharedBucket(
      leaseAwareStore(store, () => now),
      { floor: 1, ceiling: 40 },
      { batchLifeMs: 0 },
    );
    store.setLease({ rate: 5, until: NOW + 3000 });
    let granted = 0;
    for (let step = 0; step < 200; step++) {
      now += 10;
      if (bucket.take(now).granted) granted++;
    }
    // Two seconds at 5 a second (and the first second's burst of the ceiling, cut to the lease's at the first refill).
    expect(granted).toBeLessThanOrEqual(5 * 2 + 8);
    expect(store.state()!.rate).toBe(5);
    // A 429 under a lease empties the bucket and is recorded, but the rate stays the fleet's.
    bucket.report({ rateLimited: true, retryAfterMs: 100 }, now);
    expect(store.state()!.rate).toBe(5);
    expect(store.state()!.decreasedAt).toBe(now);
    // The lease runs out: the next 429 halves the rate from the last share, as a server alone does.
    now = NOW + 5000;
    bucket.report({ rateLimited: true }, now);
    expect(store.state()!.rate).toBe(2.5);
  });

  it('tells its waiters to look again within a second under a lease of almost nothing, so a larger share is noticed', () => {
    let now = NOW;
    const store = memoryStore();
    const bucket = createSharedBucket(
      leaseAwareStore(store, () => now),
      { floor: 1, ceiling: 40 },
      { batchLifeMs: 0 },
    );
    store.setLease({ rate: 0.01, until: NOW + 3000 });
    // The first tokens (a new bucket's, cut to the lease's burst of one) go; then the bucket is empty.
    let answer = bucket.take(NOW);
    for (let i = 0; i < 3 && answer.granted; i++) answer = bucket.take(NOW);
    expect(answer).toEqual({ granted: false, waitMs: 1000 });
    // Tokens still accrue at the lease's rate: one in 100 s, not one a second.
    now = NOW + 1000;
    expect(bucket.take(now).granted).toBe(false);
    expect(store.state()!.rate).toBe(0.01);
  });
});

describe('the lease round', () => {
  const logged: string[] = [];
  const logger = {
    info: (_: object, msg?: string) => void logged.push(`info ${msg}`),
    warn: (_: object, msg?: string) => void logged.push(`warn ${msg}`),
  };
  const answer = (share: number): FleetRound => ({ key: { keyRate: 20, changedAt: NOW, decreasedAt: 0 }, share, servers: 2 });

  it('writes the share as a lease, clears it at once when the fleet database fails, says so once, and rejoins', async () => {
    logged.length = 0;
    let lease: BucketLease | null = null;
    let down = false;
    let limitedAt = 5;
    const claims: boolean[] = [];
    const round = createFleetLeaseRound({
      need: () => ({ urgent: 1, backlog: 2, risk: 0.5, limitedAt }),
      exchange: async (need) => {
        claims.push(need.rateLimited);
        if (down) throw new Error('connect ECONNREFUSED');
        return answer(7);
      },
      lease: { set: (next) => void (lease = next), clear: () => void (lease = null) },
      logger,
      now: () => NOW,
    });
    await round();
    expect(lease).toEqual({ rate: 7, until: NOW + 3000 });
    limitedAt = 9;
    down = true;
    await round();
    await round();
    expect(lease).toBeNull();
    down = false;
    await round();
    expect(lease).toEqual({ rate: 7, until: NOW + 3000 });
    // A 429 the bucket met before the first round is old news; the one after is reported until a round gets through.
    expect(claims).toEqual([false, true, true, true]);
    await round();
    expect(claims.at(-1)).toBe(false);
    expect(logged).toEqual([
      'info fleet budget joined: this server follows its share',
      'warn fleet budget unavailable: this server paces itself (its own AIMD) meanwhile',
      'info fleet budget joined: this server follows its share',
    ]);
  });
});

describe('WPP_FLEET_KEY_RATE', () => {
  const machine = { hostname: 'web1', primaryIp: '198.51.100.4' };
  it("is optional (the fleet learns the key's rate) and takes a positive number of requests a second", () => {
    expect(loadConfig({}, machine, 'standalone').fleet.keyRate).toBeUndefined();
    expect(loadConfig({ WPP_FLEET_KEY_RATE: '50' }, machine, 'standalone').fleet.keyRate).toBe(50);
    expect(loadConfig({ WPP_FLEET_KEY_RATE: '12.5' }, machine, 'standalone').fleet.keyRate).toBe(12.5);
  });

  it('refuses zero, a negative number or a word, naming the variable', () => {
    for (const bad of ['0', '-5', 'fast'])
      expect(() => loadConfig({ WPP_FLEET_KEY_RATE: bad }, machine, 'standalone')).toThrow(/WPP_FLEET_KEY_RATE/);
  });
});
