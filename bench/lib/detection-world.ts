/**
 * The traffic of the detection bench: every website's hits as a function of the simulated
 * time, deterministic (the same numbers every run and for both schedules), so the bench
 * knows exactly when each website crosses its limit and how many hits it served by any time.
 *
 * Website i (the sync bench's names: `site-i.sync.bench.example` of account `customer{i % users}`):
 *   - a base rate from a heavy tail (Pareto, alpha 1.2): most websites quiet (median about
 *     150 hits a day), a few busy (0.1% above 0.3 a second); 5 to 15% of hits blocked;
 *   - at the start, the hits of the 10 days the period has run at that rate, at most 70% of
 *     the limit;
 *   - 1% are "crossers" (i % 100 == 7): websites whose traffic grew, between half and 99% of
 *     their limit used, at the steady rate that reaches the limit at a random time of the
 *     crossing window (0.1 to 20 hits a second). 1% crossing in two hours is a stress: at
 *     hosting providers a few percent of websites cross a limit in a month;
 *   - 0.2% see an attack (i % 500 == 251): 2 to 22 blocked hits a second on top, for 30 to
 *     90 minutes from a random time of the window (blocked hits count against the limit, so
 *     an attack can push a website over).
 * Rates are piecewise constant: cumulative hits are exact at any time, in closed form.
 */
import { unit } from './sync-seed.js';

const pareto = (u: number, min: number, alpha: number, max: number) => Math.min(max, min * Math.pow(1 - u, -1 / alpha));

export interface WorldOptions {
  n: number;
  /** Hits per website per period (the global limit). */
  limit: number;
  /** Simulated start (epoch ms). */
  start: number;
  /** How long the period has run at the start. */
  elapsedMs: number;
  /** The window in which crossings and attacks are placed: [start + from, start + to). */
  window: { fromMs: number; toMs: number };
}

export type Kind = 'crosser' | 'attacked' | 'normal';
export const kindOf = (i: number): Kind => (i % 100 === 7 ? 'crosser' : i % 500 === 251 ? 'attacked' : 'normal');

/** One website's traffic: hits at the start, and piecewise-constant rates (hits and blocked per second) from given times. */
export interface Traffic {
  kind: Kind;
  initial: number;
  initialBlocked: number;
  /** Segments in time order; each applies from `from` until the next one. */
  segments: { from: number; hits: number; blocked: number }[];
}

export function trafficOf(i: number, o: WorldOptions): Traffic {
  const kind = kindOf(i);
  const base = pareto(unit(i, 1), 0.001, 1.2, 5);
  const blockedShare = 0.05 + 0.1 * unit(i, 2);
  const windowAt = (salt: number, endMarginMs = 0) =>
    o.start + o.window.fromMs + unit(i, salt) * (o.window.toMs - o.window.fromMs - endMarginMs);
  if (kind === 'crosser') {
    // A website whose traffic grew: between half and 99% of its limit used, at the steady rate
    // that reaches the limit at a random time of the window (0.1 to 20 hits a second).
    const crossAt = windowAt(3);
    const initial = Math.floor(o.limit * (0.5 + 0.49 * unit(i, 4)));
    const rate = (o.limit - initial) / ((crossAt - o.start) / 1000);
    return {
      kind,
      initial,
      initialBlocked: Math.floor(initial * blockedShare),
      segments: [{ from: o.start, hits: rate, blocked: rate * blockedShare }],
    };
  }
  const initial = Math.floor(Math.min(0.7 * o.limit, base * (o.elapsedMs / 1000)));
  const segments = [{ from: o.start, hits: base, blocked: base * blockedShare }];
  if (kind === 'attacked') {
    const from = windowAt(5);
    const until = from + (30 + 60 * unit(i, 6)) * 60_000;
    const attack = 2 + 20 * unit(i, 7);
    segments.push(
      { from, hits: base + attack, blocked: base * blockedShare + attack },
      { from: until, hits: base, blocked: base * blockedShare },
    );
  }
  return { kind, initial, initialBlocked: Math.floor(initial * blockedShare), segments };
}

/** Cumulative hits and blocked hits at `at` (whole hits, rounded down). */
export function cumulativeAt(traffic: Traffic, at: number): { hits: number; blocked: number } {
  let hits = traffic.initial;
  let blocked = traffic.initialBlocked;
  const { segments } = traffic;
  for (let k = 0; k < segments.length; k++) {
    const segment = segments[k] as Traffic['segments'][number];
    if (at <= segment.from) break;
    const until = Math.min(at, segments[k + 1]?.from ?? Infinity);
    const seconds = (until - segment.from) / 1000;
    hits += segment.hits * seconds;
    blocked += segment.blocked * seconds;
  }
  return { hits: Math.floor(hits), blocked: Math.min(Math.floor(hits), Math.floor(blocked)) };
}

/** When cumulative hits first reach `limit` (epoch ms), or null if not before `end`. */
export function crossingAt(traffic: Traffic, limit: number, end: number): number | null {
  let hits = traffic.initial;
  if (hits >= limit) return traffic.segments[0]?.from ?? null;
  const { segments } = traffic;
  for (let k = 0; k < segments.length; k++) {
    const segment = segments[k] as Traffic['segments'][number];
    const until = Math.min(end, segments[k + 1]?.from ?? Infinity);
    if (until <= segment.from) continue;
    const gained = (segment.hits * (until - segment.from)) / 1000;
    if (hits + gained >= limit) return segment.from + Math.ceil(((limit - hits) * 1000) / segment.hits);
    hits += gained;
  }
  return null;
}
