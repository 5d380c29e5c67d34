/**
 * One request budget per server for every provider call (docs/fleet.md, "One budget per
 * server"): a token bucket whose rate is learned from the provider by AIMD (additive increase
 * while calls succeed, multiplicative decrease on a 429, nothing before `Retry-After`), between
 * a floor and a ceiling, and a scheduler that hands tokens to urgent waiters before background
 * ones.
 *
 * The bucket's rules are pure functions over a plain state (the clock is a parameter), so the
 * same rules serve one process (`createMemoryBucket`) and several processes sharing a row of
 * the database (`createSharedBucket` over a store passed in).
 */
import { isDatabaseBusy } from '../errors.js';

export type PacerPriority = 'urgent' | 'background';
/** Any answer but a 429 is `ok`: it used the key's budget without overloading it. */
export type PacerOutcome = 'ok' | { rateLimited: true; retryAfterMs?: number | undefined };

export interface PacerSettings {
  /** Requests a second the rate never goes below. */
  floor: number;
  /** Requests a second the rate never goes above (WPP_SYNC_RATE). */
  ceiling: number;
  /** Where a new bucket starts; default the ceiling. */
  initialRate?: number;
  /** What a second's worth of successful calls adds to the rate. Default 1. */
  increasePerSecond?: number;
  /** What a 429 multiplies the rate by. Default 0.5. */
  decreaseFactor?: number;
  /** After a decrease, further 429s within this long (answers to calls already in flight) do not decrease again. Default 1000. */
  decreaseHoldMs?: number;
  /** Tokens kept for a burst, in seconds of the rate (at least one token). Default 1. */
  burstSeconds?: number;
}

export type PacerRules = Required<PacerSettings>;

/** The bucket: its learned rate, its tokens as of `refilledAt`, and the provider's `Retry-After`. */
export interface BucketState {
  rate: number;
  tokens: number;
  /** When `tokens` was last brought up to date; in the future while a `Retry-After` runs. */
  refilledAt: number;
  blockedUntil: number;
  /** When the rate was last decreased (0: never). */
  decreasedAt: number;
}

export type TakeAnswer = { granted: true } | { granted: false; waitMs: number };

/** The settings checked and defaulted; a RangeError for settings no pacer can keep. */
export function pacerRules(settings: PacerSettings): PacerRules {
  const rules: PacerRules = {
    floor: settings.floor,
    ceiling: settings.ceiling,
    initialRate: settings.initialRate ?? settings.ceiling,
    increasePerSecond: settings.increasePerSecond ?? 1,
    decreaseFactor: settings.decreaseFactor ?? 0.5,
    decreaseHoldMs: settings.decreaseHoldMs ?? 1000,
    burstSeconds: settings.burstSeconds ?? 1,
  };
  if (!(rules.floor > 0) || !(rules.ceiling >= rules.floor)) throw new RangeError('a pacer needs 0 < floor <= ceiling');
  if (!(rules.decreaseFactor > 0 && rules.decreaseFactor < 1)) throw new RangeError('a pacer needs 0 < decreaseFactor < 1');
  if (!(rules.increasePerSecond >= 0) || !(rules.burstSeconds > 0) || !(rules.decreaseHoldMs >= 0)) {
    throw new RangeError('a pacer needs a non-negative increase and hold, and a positive burst');
  }
  return rules;
}

const clamp = (rate: number, rules: PacerRules) => Math.min(rules.ceiling, Math.max(rules.floor, rate));

/** The most tokens a bucket keeps at this rate: a burst is bounded. */
export function burstOf(rate: number, rules: PacerRules): number {
  return Math.max(1, rate * rules.burstSeconds);
}

export function initialBucket(rules: PacerRules, now: number): BucketState {
  const rate = clamp(rules.initialRate, rules);
  return { rate, tokens: burstOf(rate, rules), refilledAt: now, blockedUntil: 0, decreasedAt: 0 };
}

/** The tokens accrued since the last refill at the rate, up to the burst; none before `refilledAt`. */
export function refill(state: BucketState, now: number, rules: PacerRules): BucketState {
  if (now <= state.refilledAt) return state;
  const tokens = Math.min(burstOf(state.rate, rules), state.tokens + ((now - state.refilledAt) / 1000) * state.rate);
  return { ...state, tokens, refilledAt: now };
}

/** Takes up to `want` whole tokens; when none is there, how long until one is. */
export function takeTokens(
  state: BucketState,
  want: number,
  now: number,
  rules: PacerRules,
): { state: BucketState; granted: number; waitMs: number } {
  const current = refill(state, now, rules);
  const granted = Math.max(0, Math.min(want, Math.floor(current.tokens)));
  if (granted > 0) return { state: { ...current, tokens: current.tokens - granted }, granted, waitMs: 0 };
  const untilRefill = Math.max(0, current.refilledAt - now);
  const waitMs = untilRefill + Math.ceil(((1 - current.tokens) / current.rate) * 1000);
  return { state: current, granted: 0, waitMs: Math.max(1, waitMs) };
}

/** Additive increase: each success adds increasePerSecond / rate, so a second of them adds increasePerSecond. */
export function afterSuccesses(state: BucketState, count: number, rules: PacerRules): BucketState {
  if (count <= 0) return state;
  return { ...state, rate: clamp(state.rate + (count * rules.increasePerSecond) / state.rate, rules) };
}

/**
 * Multiplicative decrease (once per hold: the calls in flight with the first 429 answer 429
 * too), and no token before `Retry-After`: the bucket is emptied and refills only from then.
 */
export function afterRateLimited(state: BucketState, now: number, retryAfterMs: number | undefined, rules: PacerRules): BucketState {
  const decrease = state.decreasedAt === 0 || now - state.decreasedAt >= rules.decreaseHoldMs;
  const rate = decrease ? clamp(state.rate * rules.decreaseFactor, rules) : state.rate;
  const blockedUntil = Math.max(state.blockedUntil, now + Math.max(0, retryAfterMs ?? 0));
  return {
    rate,
    tokens: 0,
    refilledAt: Math.max(state.refilledAt, now, blockedUntil),
    blockedUntil,
    decreasedAt: decrease ? now : state.decreasedAt,
  };
}

/** Where a pacer's tokens come from: one process's memory, or a row several processes share. */
export interface TokenSource {
  take(now: number): TakeAnswer;
  report(outcome: PacerOutcome, now: number): void;
  /** The learned rate, for metrics and the doctor. */
  rate(): number;
}

/** The bucket of one process. */
export function createMemoryBucket(settings: PacerSettings, now: number): TokenSource {
  const rules = pacerRules(settings);
  let state = initialBucket(rules, now);
  return {
    take(at) {
      const answer = takeTokens(state, 1, at, rules);
      state = answer.state;
      return answer.granted > 0 ? { granted: true } : { granted: false, waitMs: answer.waitMs };
    },
    report(outcome, at) {
      state = outcome === 'ok' ? afterSuccesses(state, 1, rules) : afterRateLimited(state, at, outcome.retryAfterMs, rules);
    },
    rate: () => state.rate,
  };
}

/**
 * Storage of one shared bucket: `update` runs `change` on the stored state (undefined before
 * the first use) inside one write transaction and stores what it returns.
 */
export interface BucketStore {
  update<T>(change: (state: BucketState | undefined) => { state: BucketState; result: T }): T;
}

export interface SharedBucketOptions {
  /** Tokens taken per transaction, at most; default a tenth of a second's worth, 1 to 8. */
  maxBatch?: number;
  /** Tokens taken but not used within this long are dropped, never returned. Default 250 ms. */
  batchLifeMs?: number;
  /** While another process holds the write lock: try again after this long. Default 20 ms. */
  busyWaitMs?: number;
}

/**
 * A bucket several processes share through the store: tokens are taken in small batches (one
 * transaction per batch, not per call), successes are added to the rate with the next batch,
 * and a 429 is written at once so every process stops until `Retry-After`.
 */
export function createSharedBucket(store: BucketStore, settings: PacerSettings, options: SharedBucketOptions = {}): TokenSource {
  const rules = pacerRules(settings);
  const maxBatch = options.maxBatch ?? 8;
  const batchLifeMs = options.batchLifeMs ?? 250;
  const busyWaitMs = options.busyWaitMs ?? 20;
  let local = 0;
  let localUntil = 0;
  // What this process learned and has not written yet: successes, and a 429 met while the row was busy.
  let successes = 0;
  let unwrittenLimit: { at: number; retryAfterMs: number | undefined } | null = null;
  // This process's own copy of the last Retry-After, so it asks nothing of the database until then.
  let blockedUntil = 0;
  let lastRate = clamp(rules.initialRate, rules);

  /** One transaction: what was learned written, then a batch taken. */
  const fetchBatch = (now: number): TakeAnswer => {
    const counted = successes;
    const limit = unwrittenLimit;
    const answer = store.update((stored) => {
      let state = afterSuccesses(stored ?? initialBucket(rules, now), counted, rules);
      if (limit) state = afterRateLimited(state, limit.at, limit.retryAfterMs, rules);
      const batch = Math.min(maxBatch, Math.max(1, Math.floor(state.rate / 10)));
      const taken = takeTokens(state, batch, now, rules);
      return { state: taken.state, result: { granted: taken.granted, waitMs: taken.waitMs, rate: taken.state.rate } };
    });
    successes -= counted;
    if (unwrittenLimit === limit) unwrittenLimit = null;
    lastRate = answer.rate;
    if (answer.granted === 0) return { granted: false, waitMs: answer.waitMs };
    local = answer.granted - 1;
    localUntil = now + batchLifeMs;
    return { granted: true };
  };

  return {
    take(now) {
      if (now < blockedUntil) return { granted: false, waitMs: blockedUntil - now };
      if (local > 0 && now < localUntil) {
        local--;
        return { granted: true };
      }
      local = 0;
      try {
        return fetchBatch(now);
      } catch (error) {
        if (isDatabaseBusy(error)) return { granted: false, waitMs: busyWaitMs };
        throw error;
      }
    },
    report(outcome, now) {
      if (outcome === 'ok') {
        successes++;
        return;
      }
      // The batch in hand goes too: every process stops until Retry-After.
      local = 0;
      blockedUntil = Math.max(blockedUntil, now + Math.max(0, outcome.retryAfterMs ?? 0));
      unwrittenLimit = { at: now, retryAfterMs: outcome.retryAfterMs };
      const counted = successes;
      try {
        lastRate = store.update((stored) => {
          const grown = afterSuccesses(stored ?? initialBucket(rules, now), counted, rules);
          const state = afterRateLimited(grown, now, outcome.retryAfterMs, rules);
          return { state, result: state.rate };
        });
        successes -= counted;
        unwrittenLimit = null;
      } catch (error) {
        // Written with the next batch instead: a busy database must not lose a 429.
        if (!isDatabaseBusy(error)) throw error;
      }
    },
    rate: () => lastRate,
  };
}

/** Time for the scheduler: the real one in production, a manual one in tests. */
export interface PacerClock {
  now(): number;
  /** Calls `fire` after `ms`; returns how to cancel it. */
  setTimer(fire: () => void, ms: number): () => void;
}

export const systemClock: PacerClock = {
  now: () => Date.now(),
  setTimer(fire, ms) {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
};

interface Waiter {
  priority: PacerPriority;
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal?: AbortSignal | undefined;
  onAbort?: () => void;
}

/** While background callers wait, at most this many grants in a row go to urgent ones (default of `backgroundEvery`). */
export const DEFAULT_BACKGROUND_EVERY = 10;

/**
 * The pacer a server's provider calls share: `take` resolves when the call may go (urgent
 * waiters first, each priority first come first served), `report` tells how it ended. A
 * success raises the rate only while callers waited for tokens (within `pressureWindowMs`,
 * default a second); a 429 always lowers it. Urgent first is not urgent only: while background
 * callers wait, one grant in `backgroundEvery` (default 10) goes to the oldest of them, so a
 * steady urgent stream (a mass enforcement) slows the background but cannot stop it.
 */
export function createPacer(deps: { source: TokenSource; clock: PacerClock; pressureWindowMs?: number; backgroundEvery?: number }) {
  const { source, clock } = deps;
  const pressureWindowMs = deps.pressureWindowMs ?? 1000;
  const backgroundEvery = deps.backgroundEvery ?? DEFAULT_BACKGROUND_EVERY;
  if (!Number.isInteger(backgroundEvery) || backgroundEvery < 2) throw new RangeError('a pacer needs backgroundEvery, an integer >= 2');
  const queues: Record<PacerPriority, Waiter[]> = { urgent: [], background: [] };
  let cancelTimer: (() => void) | null = null;
  // When a caller last had to wait for a token: the rate is raised only under that pressure,
  // or an idle server's successes would lift it to the ceiling and it would meet 429s when busy.
  let pressedAt = Number.NEGATIVE_INFINITY;
  // Urgent grants in a row while background callers waited: at backgroundEvery - 1, the background's turn.
  let urgentInARow = 0;

  const next = (): Waiter | undefined => {
    const background = queues.background[0];
    if (background && (urgentInARow >= backgroundEvery - 1 || !queues.urgent[0])) return background;
    return queues.urgent[0] ?? background;
  };
  const counted = (granted: Waiter) => {
    urgentInARow = granted.priority === 'urgent' && queues.background.length > 0 ? urgentInARow + 1 : 0;
  };
  const remove = (waiter: Waiter) => {
    for (const queue of Object.values(queues)) {
      const index = queue.indexOf(waiter);
      if (index >= 0) queue.splice(index, 1);
    }
    if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
  };

  /** Grants tokens to the waiters in order while there are any; otherwise one timer for the next. */
  const pump = () => {
    if (cancelTimer) return;
    for (let waiter = next(); waiter; waiter = next()) {
      let answer: TakeAnswer;
      try {
        answer = source.take(clock.now());
      } catch (error) {
        // The budget cannot be read (the database failing): the call waiting first fails with it, not the process.
        remove(waiter);
        waiter.reject(error);
        continue;
      }
      if (!answer.granted) {
        pressedAt = clock.now();
        cancelTimer = clock.setTimer(() => {
          cancelTimer = null;
          pump();
        }, answer.waitMs);
        return;
      }
      remove(waiter);
      counted(waiter);
      waiter.resolve();
    }
  };

  return {
    /** Resolves when a call of this priority may be sent; rejects with the signal's reason at a stop. */
    take(priority: PacerPriority, signal?: AbortSignal): Promise<void> {
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<void>((resolve, reject) => {
        const waiter: Waiter = { priority, resolve, reject, signal };
        if (signal) {
          waiter.onAbort = () => {
            remove(waiter);
            reject(signal.reason);
          };
          signal.addEventListener('abort', waiter.onAbort, { once: true });
        }
        queues[priority].push(waiter);
        pump();
      });
    },
    report(outcome: PacerOutcome): void {
      const now = clock.now();
      // A success while no caller waited within the window says nothing about a higher rate.
      if (outcome === 'ok' && now - pressedAt > pressureWindowMs) return;
      source.report(outcome, now);
    },
    /** The learned rate, requests a second. */
    rate: () => source.rate(),
    /** Waiters not yet granted, per priority. */
    waiting: () => ({ urgent: queues.urgent.length, background: queues.background.length }),
  };
}

export type Pacer = ReturnType<typeof createPacer>;
