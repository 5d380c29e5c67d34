/**
 * Simulated time for benches that run many plugins' real code together (bench/fleet.bench.ts):
 * a clock that moves only when nothing is working. Timers (the pacers' waits, each server's
 * next tick) fire in time order; between two of them the clock stands still while any
 * provider call is on its way (the sandbox answers in real time, which costs no simulated
 * time) or any code runs. The clock is a PacerClock, so the real pacer waits on it.
 */
import type { PacerClock } from '../../src/core/pacer.js';

interface Timer {
  at: number;
  seq: number;
  fire: () => void;
  cancelled: boolean;
}

/** A binary heap of timers by (at, seq): the earliest first, ties in the order they were set. */
class TimerHeap {
  private items: Timer[] = [];
  get size() {
    return this.items.length;
  }
  push(timer: Timer) {
    const items = this.items;
    items.push(timer);
    for (let i = items.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!before(items[i] as Timer, items[parent] as Timer)) break;
      [items[i], items[parent]] = [items[parent] as Timer, items[i] as Timer];
      i = parent;
    }
  }
  pop(): Timer | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      for (let i = 0; ;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < items.length && before(items[left] as Timer, items[least] as Timer)) least = left;
        if (right < items.length && before(items[right] as Timer, items[least] as Timer)) least = right;
        if (least === i) break;
        [items[i], items[least]] = [items[least] as Timer, items[i] as Timer];
        i = least;
      }
    }
    return top;
  }
}

const before = (a: Timer, b: Timer) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface SimClock extends PacerClock {
  /** Resolves after `ms` of simulated time. */
  sleep(ms: number): Promise<void>;
  /** Marks work under way that the clock must not move past (a provider call); returns its end. */
  busy(): () => void;
  /** Inside busy work: waits for `waiting` (a pacer's token) as idle, so the clock may move meanwhile. */
  idleWhile<T>(waiting: Promise<T>): Promise<T>;
  /** Fires timers in order until none is left before `until` or `done()` says so; the clock ends at `until` at most. */
  run(until: number, done?: () => boolean): Promise<void>;
}

export function createSimClock(start: number): SimClock {
  let now = start;
  let seq = 0;
  let working = 0;
  const timers = new TimerHeap();

  /** Waits until no work is under way through a few event-loop turns in a row (answers arrive between turns). */
  const settle = async () => {
    for (let quiet = 0; quiet < 3;) {
      await turn();
      quiet = working === 0 ? quiet + 1 : 0;
    }
  };

  return {
    now: () => now,
    setTimer(fire, ms) {
      const timer: Timer = { at: now + Math.max(0, ms), seq: seq++, fire, cancelled: false };
      timers.push(timer);
      return () => {
        timer.cancelled = true;
      };
    },
    sleep(ms) {
      return new Promise((resolve) => this.setTimer(resolve, ms));
    },
    busy() {
      working++;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        working--;
      };
    },
    async idleWhile(waiting) {
      working--;
      try {
        return await waiting;
      } finally {
        working++;
      }
    },
    async run(until, done = () => false) {
      for (;;) {
        await settle();
        if (done()) return;
        const timer = timers.pop();
        if (!timer) return;
        if (timer.cancelled) continue;
        if (timer.at > until) {
          timers.push(timer);
          now = Math.max(now, until);
          return;
        }
        now = Math.max(now, timer.at);
        timer.fire();
      }
    },
  };
}
