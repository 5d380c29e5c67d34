import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startPluginSchedule } from '../../src/jobs/plugin-schedule.js';
import { createScheduler, nextRunAt } from '../../src/jobs/schedule.js';
import type { ReadTickResult } from '../../src/core/read-tick.js';
import type { SyncResult } from '../../src/core/statistics.js';
import type { EnforceResult } from '../../src/core/enforcement.js';

const MINUTE = 60_000;
const silent = pino({ level: 'silent' });
/** Lets the runs a tick started settle (they are promise chains). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Drives a scheduler with an injected clock: one heartbeat per minute, as node-cron gives,
 * `lateMs` after the minute starts. Returns when each run of `name` began.
 */
async function runsOver(everyMinutes: number, hours: number, options: { start?: number; lateMs?: number; skipMinutes?: Set<number> } = {}) {
  let time = options.start ?? Date.UTC(2026, 10, 23, 9, 17, 0);
  const runs: number[] = [];
  const scheduler = createScheduler({
    logger: silent,
    now: () => time,
    jobs: [{ name: 'job', everyMinutes, run: async () => void runs.push(time) }],
  });
  const firstMinute = Math.ceil(time / MINUTE) * MINUTE;
  for (let minute = 0; minute < hours * 60; minute++) {
    if (options.skipMinutes?.has(minute)) continue;
    time = firstMinute + minute * MINUTE + (options.lateMs ?? 0);
    scheduler.tick();
    await settle();
  }
  return runs;
}

const gapsOf = (runs: number[]) => runs.slice(1).map((at, i) => (at - (runs[i] as number)) / MINUTE);

describe('interval schedules', () => {
  it.each([1, 5, 7, 45, 90, 100, 240, 1440])('every %i minutes fires at even gaps', async (everyMinutes) => {
    const runs = await runsOver(everyMinutes, 3 * 24);
    expect(runs.length).toBeGreaterThanOrEqual(Math.floor((3 * 24 * 60) / everyMinutes) - 1);
    expect(new Set(gapsOf(runs))).toEqual(new Set([everyMinutes]));
  });

  it('45 minutes is not the cron step */45 (gaps of 45 and 15), nor 90 minutes two hours', async () => {
    const at45 = await runsOver(45, 6);
    expect(at45.map((at) => new Date(at).toISOString().slice(11, 16))).toEqual([
      '09:45',
      '10:30',
      '11:15',
      '12:00',
      '12:45',
      '13:30',
      '14:15',
      '15:00',
    ]);
    expect(gapsOf(await runsOver(90, 12))).toEqual(Array(7).fill(90));
  });

  it('lands on round times when the interval divides the hour', async () => {
    const runs = await runsOver(15, 2);
    expect(runs.map((at) => new Date(at).getUTCMinutes())).toEqual([30, 45, 0, 15, 30, 45, 0, 15]);
  });

  it('keeps its slots when heartbeats come late or are missed', async () => {
    const runs = await runsOver(10, 4, { lateMs: 40_000, skipMinutes: new Set([13, 43, 44]) });
    // A late beat still runs in its slot (at :x0:40); a missed one runs at the next beat of the slot.
    expect(runs.map((at) => (at % (10 * MINUTE)) / 1000)).toContain(40);
    expect(
      runs.every((at, i) => i === 0 || Math.floor(at / (10 * MINUTE)) - Math.floor((runs[i - 1] as number) / (10 * MINUTE)) === 1),
    ).toBe(true);
  });

  it('skips a slot rather than overlapping a run still going', async () => {
    let time = Date.UTC(2026, 10, 23, 0, 0, 30);
    let finish: () => void = () => {};
    let started = 0;
    const scheduler = createScheduler({
      logger: silent,
      now: () => time,
      jobs: [{ name: 'slow', everyMinutes: 1, run: () => new Promise<void>((resolve) => (started++, (finish = resolve))) }],
    });
    for (const minute of [1, 2, 3]) {
      time = Date.UTC(2026, 10, 23, 0, minute, 0);
      scheduler.tick();
      await settle();
    }
    expect(started).toBe(1);
    finish();
    await settle();
    time = Date.UTC(2026, 10, 23, 0, 4, 0);
    scheduler.tick();
    await settle();
    expect(started).toBe(2);
    finish();
    await scheduler.stop();
  });

  it('refuses an interval outside 1 minute to 24 hours', () => {
    for (const everyMinutes of [0, 1441, 2.5]) {
      expect(() => createScheduler({ logger: silent, jobs: [{ name: 'x', everyMinutes, run: async () => undefined }] })).toThrow(
        /1 to 1440/,
      );
    }
  });

  it('names the next regular run', () => {
    expect(new Date(nextRunAt(Date.UTC(2026, 10, 23, 9, 17, 5), 45)).toISOString()).toBe('2026-11-23T09:45:00.000Z');
  });
});

describe('the plugin schedule', () => {
  const sync: SyncResult = { skipped: false, stopped: false, total: 1, read: 1, failed: 0, firstError: null, seconds: 0, runId: 1 };
  const enforce: EnforceResult = { paused: 0, resumed: 0, warnings: 0, leftAlone: 0, failed: 0, runId: 2 };

  const tick: ReadTickResult = {
    skipped: false,
    stopped: false,
    due: 1,
    read: 1,
    failed: 0,
    paused: 0,
    spikes: 0,
    firstError: null,
    seconds: 1,
    runId: 3,
  };

  async function startWith(
    lastSuccessfulSync: number | null,
    now: number,
    mode: 'adaptive' | 'full' = 'full',
    lastSuccessfulEnforce: number | null = null,
  ) {
    const calls: string[] = [];
    const schedule = startPluginSchedule({
      logger: silent,
      now: () => now,
      syncEveryMinutes: 30,
      mode,
      lastSuccessfulSync,
      lastSuccessfulEnforce,
      reconcile: () => (calls.push('reconcile'), { enqueued: 0 }),
      syncStatistics: async () => (calls.push('sync'), sync),
      readTick: async (seconds) => (calls.push(`tick ${seconds}s`), tick),
      enforceLimits: async () => (calls.push('enforce'), enforce),
    });
    await settle();
    await settle();
    await schedule.stop();
    return calls;
  }

  it('catches up at start when the last sync is older than the interval, and enforces after it', async () => {
    const now = Date.UTC(2026, 10, 23, 9, 17);
    expect(await startWith(null, now)).toEqual(['sync', 'enforce']);
    expect(await startWith(now - 31 * MINUTE, now)).toEqual(['sync', 'enforce']);
  });

  it('waits for its slot when the last sync is recent', async () => {
    const now = Date.UTC(2026, 10, 23, 9, 17);
    expect(await startWith(now - 29 * MINUTE, now)).toEqual([]);
  });

  it('adaptive: ticks at start within 55 s of budget, and runs the full enforcement pass only once its interval has passed', async () => {
    const now = Date.UTC(2026, 10, 23, 9, 17);
    expect(await startWith(null, now, 'adaptive', null)).toEqual(['tick 55s', 'enforce']);
    expect(await startWith(now - 31 * MINUTE, now, 'adaptive', now - 31 * MINUTE)).toEqual(['tick 55s', 'enforce']);
    expect(await startWith(now - 31 * MINUTE, now, 'adaptive', now - 29 * MINUTE)).toEqual(['tick 55s']);
  });

  it('switches websites whose monitoring is over every 5 minutes, at the start of each slot', async () => {
    let now = Date.UTC(2026, 10, 23, 9, 17, 30);
    const calls: string[] = [];
    const schedule = startPluginSchedule({
      logger: silent,
      now: () => now,
      syncEveryMinutes: 30,
      mode: 'full',
      lastSuccessfulSync: now - MINUTE,
      lastSuccessfulEnforce: now - MINUTE,
      reconcile: () => ({ enqueued: 0 }),
      syncStatistics: async () => sync,
      readTick: async () => tick,
      enforceLimits: async () => enforce,
      switchMonitoring: async () => (calls.push(`switch at ${new Date(now).toISOString().slice(11, 19)}`), { protected: 0 }),
    });
    now = Date.UTC(2026, 10, 23, 9, 19, 0);
    schedule.tick();
    await settle();
    now = Date.UTC(2026, 10, 23, 9, 20, 1);
    schedule.tick();
    await settle();
    now = Date.UTC(2026, 10, 23, 9, 24, 0);
    schedule.tick();
    await settle();
    now = Date.UTC(2026, 10, 23, 9, 25, 0);
    schedule.tick();
    await settle();
    await schedule.stop();
    expect(calls).toEqual(['switch at 09:20:01', 'switch at 09:25:00']);
  });
});
