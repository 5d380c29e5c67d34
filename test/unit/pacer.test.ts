import { describe, expect, it } from 'vitest';
import {
  afterRateLimited,
  afterSuccesses,
  createMemoryBucket,
  createPacer,
  initialBucket,
  pacerRules,
  takeTokens,
  type PacerClock,
  type TokenSource,
} from '../../src/core/pacer.js';

/** A clock that moves only when the test moves it, firing the timers that fall due on the way. */
function manualClock(start = 1_000_000) {
  let now = start;
  let timers: { at: number; fire: () => void; id: number }[] = [];
  let ids = 0;
  const clock: PacerClock & { advance(ms: number): void } = {
    now: () => now,
    setTimer(fire, ms) {
      const id = ++ids;
      timers.push({ at: now + ms, fire, id });
      return () => {
        timers = timers.filter((timer) => timer.id !== id);
      };
    },
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = timers.filter((timer) => timer.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((timer) => timer !== due);
        now = Math.max(now, due.at);
        due.fire();
      }
      now = end;
    },
  };
  return clock;
}

/** Lets the promise callbacks of the grants made so far run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the pacer', () => {
  it('grants urgent waiters before background ones, each in the order they came', async () => {
    const clock = manualClock();
    const pacer = createPacer({ source: createMemoryBucket({ floor: 1, ceiling: 1 }, clock.now()), clock });
    const order: string[] = [];
    const track = (name: string, promise: Promise<void>) => promise.then(() => order.push(name));
    // The one token of the burst goes to the first caller; the others wait.
    void track('background-1', pacer.take('background'));
    void track('background-2', pacer.take('background'));
    void track('background-3', pacer.take('background'));
    void track('urgent-1', pacer.take('urgent'));
    void track('urgent-2', pacer.take('urgent'));
    await settle();
    expect(order).toEqual(['background-1']);
    expect(pacer.waiting()).toEqual({ urgent: 2, background: 2 });
    for (let second = 0; second < 4; second++) {
      clock.advance(1000);
      await settle();
    }
    expect(order).toEqual(['background-1', 'urgent-1', 'urgent-2', 'background-2', 'background-3']);
  });

  it('raises the rate additively while calls succeed, up to the ceiling and never past it', () => {
    const rules = pacerRules({ floor: 2, ceiling: 20, initialRate: 10, increasePerSecond: 1 });
    let state = initialBucket(rules, 0);
    // A second's worth of successes at 10 a second adds increasePerSecond.
    state = afterSuccesses(state, 10, rules);
    expect(state.rate).toBeCloseTo(11, 6);
    for (let i = 0; i < 1000; i++) state = afterSuccesses(state, 20, rules);
    expect(state.rate).toBe(20);
  });

  it('keeps its rate while it sends below it: an idle server does not drift up to the ceiling', async () => {
    const clock = manualClock();
    const pacer = createPacer({ source: createMemoryBucket({ floor: 1, ceiling: 40, initialRate: 10 }, clock.now()), clock });
    // Two calls a second for a minute, all answered ok: never a caller waiting for a token.
    for (let second = 0; second < 60; second++) {
      for (let call = 0; call < 2; call++) {
        await pacer.take('background');
        pacer.report('ok');
      }
      clock.advance(1000);
    }
    expect(pacer.rate()).toBe(10);
  });

  it('raises its rate while callers wait for tokens and the answers are ok', async () => {
    const clock = manualClock();
    const pacer = createPacer({ source: createMemoryBucket({ floor: 1, ceiling: 40, initialRate: 10 }, clock.now()), clock });
    // Always more callers than tokens: each granted call is answered ok at once.
    let granted = 0;
    const caller = async () => {
      for (;;) {
        await pacer.take('background');
        granted++;
        pacer.report('ok');
        if (granted >= 200) return;
      }
    };
    void Promise.all([
      caller(),
      caller(),
      caller(),
      caller(),
      caller(),
      caller(),
      caller(),
      caller(),
      caller(),
      caller(),
      caller(),
      caller(),
    ]);
    for (let step = 0; step < 300 && granted < 200; step++) {
      clock.advance(100);
      await settle();
    }
    expect(pacer.rate()).toBeGreaterThan(11);
  });

  it('halves the rate on a 429 (once for the calls already in flight), never below the floor', () => {
    const rules = pacerRules({ floor: 2, ceiling: 40, initialRate: 40 });
    let state = initialBucket(rules, 0);
    state = afterRateLimited(state, 10_000, undefined, rules);
    expect(state.rate).toBe(20);
    // Answers to calls sent before the first 429 came: the same overload, no second halving.
    state = afterRateLimited(state, 10_300, undefined, rules);
    expect(state.rate).toBe(20);
    state = afterRateLimited(state, 11_000, undefined, rules);
    expect(state.rate).toBe(10);
    for (let i = 1; i <= 10; i++) state = afterRateLimited(state, 11_000 + i * 1000, undefined, rules);
    expect(state.rate).toBe(2);
  });

  it('grants nothing before Retry-After, and starts again at the learned rate after it', async () => {
    const clock = manualClock();
    const pacer = createPacer({ source: createMemoryBucket({ floor: 1, ceiling: 10 }, clock.now()), clock });
    let granted = 0;
    const takeMany = (n: number) => {
      for (let i = 0; i < n; i++) void pacer.take('urgent').then(() => granted++);
    };
    takeMany(10);
    await settle();
    expect(granted).toBe(10);
    pacer.report({ rateLimited: true, retryAfterMs: 5000 });
    expect(pacer.rate()).toBe(5);
    takeMany(20);
    clock.advance(4999);
    await settle();
    expect(granted).toBe(10);
    // From Retry-After the bucket refills at the learned rate (5 a second), from empty: no burst.
    clock.advance(1 + 200);
    await settle();
    expect(granted).toBe(11);
    clock.advance(800);
    await settle();
    expect(granted).toBe(15);
  });

  it('bounds a burst after a quiet spell to a second of the rate', async () => {
    const clock = manualClock();
    const pacer = createPacer({ source: createMemoryBucket({ floor: 1, ceiling: 10 }, clock.now()), clock });
    clock.advance(60_000);
    let granted = 0;
    for (let i = 0; i < 100; i++) void pacer.take('background').then(() => granted++);
    await settle();
    expect(granted).toBe(10);
    clock.advance(1000);
    await settle();
    expect(granted).toBe(20);
  });

  it('drops a waiter whose caller stops, without spending a token on it', async () => {
    const clock = manualClock();
    const pacer = createPacer({ source: createMemoryBucket({ floor: 1, ceiling: 1 }, clock.now()), clock });
    await pacer.take('background');
    const stop = new AbortController();
    const stopped = pacer.take('background', stop.signal);
    const after = pacer.take('background');
    stop.abort(new Error('stopped'));
    await expect(stopped).rejects.toThrow('stopped');
    let done = false;
    void after.then(() => (done = true));
    clock.advance(1000);
    await settle();
    expect(done).toBe(true);
    expect(pacer.waiting()).toEqual({ urgent: 0, background: 0 });
  });

  it('fails the waiting call, not the process, when the budget cannot be read, and goes on after', async () => {
    const clock = manualClock();
    const memory = createMemoryBucket({ floor: 1, ceiling: 1 }, clock.now());
    let failing = false;
    const source: TokenSource = {
      take: (now) => {
        if (failing) throw new Error('database is damaged');
        return memory.take(now);
      },
      report: (outcome, now) => memory.report(outcome, now),
      rate: () => memory.rate(),
    };
    const pacer = createPacer({ source, clock });
    await pacer.take('urgent');
    // This one waits for the next token, asked for when the pacer's timer fires.
    const waiting = pacer.take('urgent');
    failing = true;
    clock.advance(1000);
    await expect(waiting).rejects.toThrow('database is damaged');
    failing = false;
    await expect(pacer.take('urgent')).resolves.toBeUndefined();
  });

  it('tells how long until the next token, counting a Retry-After still running', () => {
    const rules = pacerRules({ floor: 1, ceiling: 4 });
    let state = takeTokens(initialBucket(rules, 0), 4, 0, rules).state;
    expect(takeTokens(state, 1, 0, rules)).toMatchObject({ granted: 0, waitMs: 250 });
    state = afterRateLimited(state, 0, 3000, rules);
    expect(takeTokens(state, 1, 1000, rules)).toMatchObject({ granted: 0, waitMs: 2000 + 500 });
  });

  it('refuses settings no pacer can keep', () => {
    expect(() => pacerRules({ floor: 0, ceiling: 10 })).toThrow(RangeError);
    expect(() => pacerRules({ floor: 5, ceiling: 1 })).toThrow(RangeError);
    expect(() => pacerRules({ floor: 1, ceiling: 10, decreaseFactor: 1 })).toThrow(RangeError);
  });
});
