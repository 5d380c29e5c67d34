/**
 * Urgent first, but not urgent only (docs/fleet.md, "One budget per server"): under a steady
 * stream of urgent calls the background still gets one token in `backgroundEvery`, so a mass
 * enforcement at a period's end cannot hold the statistics sync or an import back forever.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryBucket, createPacer, type PacerClock, type PacerPriority } from '../../src/core/pacer.js';

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

/**
 * A pacer at one token a second (burst one) with `background` background waiters and an
 * urgent stream that never runs dry: each urgent grant is replaced by a new urgent waiter.
 * Returns the priorities of the grants, in order, over `seconds`.
 */
async function grantsUnderUrgentStream(options: { backgroundEvery?: number; background: number; seconds: number }) {
  const clock = manualClock();
  const pacer = createPacer({
    source: createMemoryBucket({ floor: 1, ceiling: 1 }, clock.now()),
    clock,
    ...(options.backgroundEvery === undefined ? {} : { backgroundEvery: options.backgroundEvery }),
  });
  const grants: PacerPriority[] = [];
  const urgent = (): void => {
    void pacer.take('urgent').then(() => {
      grants.push('urgent');
      urgent();
    });
  };
  // The burst's one token goes to the first urgent caller; a second one is waiting from the start.
  urgent();
  urgent();
  for (let i = 0; i < options.background; i++) void pacer.take('background').then(() => grants.push('background'));
  for (let second = 0; second < options.seconds; second++) {
    await settle();
    clock.advance(1000);
  }
  await settle();
  return { grants, waiting: pacer.waiting() };
}

describe('the pacer under a steady urgent stream', () => {
  it('gives the waiting background one token in backgroundEvery, the rest still urgent', async () => {
    const { grants, waiting } = await grantsUnderUrgentStream({ backgroundEvery: 5, background: 3, seconds: 20 });
    // 21 tokens: the burst's and one a second for 20 seconds.
    expect(grants).toHaveLength(21);
    // The burst's token went to an urgent caller before the background came; from then on, never
    // more than backgroundEvery - 1 urgent grants in a row while the background waited.
    expect(grants.slice(0, 6)).toEqual(['urgent', 'urgent', 'urgent', 'urgent', 'urgent', 'background']);
    const positions = grants.flatMap((priority, index) => (priority === 'background' ? [index] : []));
    expect(positions).toEqual([5, 10, 15]);
    // Once the background is served, urgent calls take every token again.
    expect(grants.slice(16)).toEqual(Array(5).fill('urgent'));
    expect(waiting).toEqual({ urgent: 2, background: 0 });
  });

  it('defaults to one token in ten for the background while it waits', async () => {
    const { grants } = await grantsUnderUrgentStream({ background: 2, seconds: 25 });
    const positions = grants.flatMap((priority, index) => (priority === 'background' ? [index] : []));
    expect(positions).toEqual([10, 20]);
  });

  it('still serves urgent callers first when they do not fill the tokens', async () => {
    const clock = manualClock();
    const pacer = createPacer({ source: createMemoryBucket({ floor: 1, ceiling: 1 }, clock.now()), clock, backgroundEvery: 2 });
    const order: string[] = [];
    void pacer.take('background').then(() => order.push('background-1'));
    void pacer.take('background').then(() => order.push('background-2'));
    void pacer.take('urgent').then(() => order.push('urgent-1'));
    for (let second = 0; second < 3; second++) {
      await settle();
      clock.advance(1000);
    }
    await settle();
    // The first background caller had the burst's token before anyone else came; then urgent first.
    expect(order).toEqual(['background-1', 'urgent-1', 'background-2']);
  });

  it('refuses a share that would never serve the background', () => {
    const clock = manualClock();
    const source = createMemoryBucket({ floor: 1, ceiling: 1 }, clock.now());
    expect(() => createPacer({ source, clock, backgroundEvery: 1 })).toThrow(RangeError);
    expect(() => createPacer({ source, clock, backgroundEvery: 2.5 })).toThrow(RangeError);
  });
});
