/**
 * The pacer's bucket shared through the plugin's SQLite file (migration 025): two processes on
 * one data folder share one budget. The first tests use two connections to one file (as two
 * processes have) and the test's clock: time is simulated, nothing waits. The last runs two
 * real processes for two seconds.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createSharedBucket, type PacerSettings, type TokenSource } from '../../src/core/pacer.js';
import { createPacerBucketRepo } from '../../src/db/pacer-bucket.repo.js';
import { openPluginDatabase } from '../../src/db/plugin-database.js';
import type { Db } from '../../src/db/open.js';
import { paths } from '../../src/paths.js';
import { createTempDir, removeTempDir } from '../helpers/temp.js';

const settings: PacerSettings = { floor: 1, ceiling: 20, increasePerSecond: 0 };
const opened: Db[] = [];
const dirs: string[] = [];

/** Two pacer buckets on one database file, each through its own connection. */
function twoProcesses(): [TokenSource, TokenSource] {
  const dir = createTempDir('wpp-pacer-');
  dirs.push(dir);
  const databaseFile = join(dir, 'plugin.sqlite');
  const open = () => {
    const db = openPluginDatabase({ databaseFile }, { notice: () => undefined });
    opened.push(db);
    return createSharedBucket(createPacerBucketRepo(db), settings);
  };
  return [open(), open()];
}

afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  for (const dir of dirs.splice(0)) removeTempDir(dir);
});

/** Both take every token they can, every 7 simulated ms (not a divisor of a token's 50 ms), for `ms`; the times of their grants. */
function runGreedy(sources: TokenSource[], from: number, ms: number): number[][] {
  const grants: number[][] = sources.map(() => []);
  for (let now = from, step = 0; now < from + ms; now += 7, step++) {
    // Whoever asks first gets the token: the processes take turns at asking first.
    for (let k = 0; k < sources.length; k++) {
      const i = (step + k) % sources.length;
      while (sources[i]!.take(now).granted) grants[i]!.push(now);
    }
  }
  return grants;
}

describe('the pacer shared by two processes on one data folder', () => {
  it('never grants more together than the rate over a window, plus one burst, and shares it', () => {
    const [a, b] = twoProcesses();
    const [grantsA, grantsB] = runGreedy([a, b], 0, 10_000);
    const all = [...grantsA!, ...grantsB!].sort((x, y) => x - y);
    // 20 a second for 10 s, plus the one-second burst the bucket starts with.
    expect(all.length).toBeLessThanOrEqual(20 * 10 + 20);
    expect(all.length).toBeGreaterThanOrEqual(20 * 10);
    // Any one second of it: the rate plus at most one burst.
    for (const start of all) {
      const inWindow = all.filter((at) => at >= start && at < start + 1000).length;
      expect(inWindow).toBeLessThanOrEqual(40);
    }
    // Past the first burst, no second holds more than the rate (and a token's rounding).
    for (let start = 1000; start <= 9000; start += 250) {
      expect(all.filter((at) => at >= start && at < start + 1000).length).toBeLessThanOrEqual(21);
    }
    // Neither process takes it all.
    expect(Math.min(grantsA!.length, grantsB!.length)).toBeGreaterThan(all.length / 4);
  });

  it('stops both processes until Retry-After when one of them meets a 429, at the halved rate after', () => {
    const [a, b] = twoProcesses();
    runGreedy([a, b], 0, 2000);
    a.report({ rateLimited: true, retryAfterMs: 3000 }, 2000);
    expect(a.rate()).toBe(10);
    const [duringA, duringB] = runGreedy([a, b], 2000, 3000);
    expect(duringA!.length + duringB!.length).toBe(0);
    const [afterA, afterB] = runGreedy([a, b], 5000, 4000);
    // Four seconds at the halved rate, from an empty bucket.
    const total = afterA!.length + afterB!.length;
    expect(total).toBeLessThanOrEqual(40);
    expect(total).toBeGreaterThanOrEqual(38);
    expect(b.rate()).toBe(10);
  });

  it('keeps a 429 met while another process holds the write lock, and writes it with the next batch', () => {
    const dir = createTempDir('wpp-pacer-');
    dirs.push(dir);
    const databaseFile = join(dir, 'plugin.sqlite');
    const open = (busyTimeoutMs: number) => {
      const db = openPluginDatabase({ databaseFile }, { notice: () => undefined, busyTimeoutMs });
      opened.push(db);
      return db;
    };
    const a = createSharedBucket(createPacerBucketRepo(open(10)), settings);
    const b = createSharedBucket(createPacerBucketRepo(open(10)), settings);
    const writer = open(10);
    expect(a.take(0).granted).toBe(true);
    // A page of statistics being stored elsewhere: the 429 cannot be written now.
    writer.exec('BEGIN IMMEDIATE');
    a.report({ rateLimited: true, retryAfterMs: 3000 }, 100);
    // The process that met it stops at once, without asking the database.
    expect(a.take(200)).toEqual({ granted: false, waitMs: 2900 });
    writer.exec('COMMIT');
    // Its next ask writes the 429: the bucket refills from Retry-After at the halved rate, and
    // the other process waits for it too.
    expect(a.take(3100)).toEqual({ granted: false, waitMs: 100 });
    expect(createPacerBucketRepo(writer).get()).toMatchObject({ rate: 10, blockedUntil: 3100 });
    expect(runGreedy([b], 3101, 90)[0]).toEqual([]);
    expect(b.take(3200).granted).toBe(true);
  });

  it("raises the shared rate with both processes' successes", () => {
    const shared: PacerSettings = { floor: 1, ceiling: 20, initialRate: 10, increasePerSecond: 1 };
    const dir = createTempDir('wpp-pacer-');
    dirs.push(dir);
    const databaseFile = join(dir, 'plugin.sqlite');
    const [a, b] = [0, 1].map(() => {
      const db = openPluginDatabase({ databaseFile }, { notice: () => undefined });
      opened.push(db);
      return createSharedBucket(createPacerBucketRepo(db), shared);
    }) as [TokenSource, TokenSource];
    for (let i = 0; i < 10; i++) {
      a.report('ok', i);
      b.report('ok', i);
    }
    // The successes go to the row with each process's next batch.
    a.take(100);
    b.take(100);
    // Ten successes at 10 a second add 1 (a second's worth), then ten more at 11 add 10/11.
    expect(createPacerBucketRepo(opened[0]!).get()?.rate).toBeCloseTo(10 + 1 + 10 / 11, 6);
  });
});

/**
 * A process that, from `startAt` to `endAt` (epoch ms), takes every token its pacer grants from
 * the database file's shared bucket and prints the times of its grants as JSON.
 */
function writeGreedyScript(dir: string): string {
  const script = join(dir, 'greedy-pacer.mts');
  const from = (path: string) => JSON.stringify(pathToFileURL(join(paths.root, path)).href);
  writeFileSync(
    script,
    `import { createPacer, createSharedBucket, systemClock } from ${from('src/core/pacer.ts')};
import { createPacerBucketRepo } from ${from('src/db/pacer-bucket.repo.ts')};
import { openPluginDatabase } from ${from('src/db/plugin-database.ts')};
const [file, startAt, endAt, ceiling] = process.argv.slice(2);
const db = openPluginDatabase({ databaseFile: file }, { notice: () => undefined });
const source = createSharedBucket(createPacerBucketRepo(db), { floor: 1, ceiling: Number(ceiling), increasePerSecond: 0 });
const pacer = createPacer({ source, clock: systemClock });
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
const grants = [];
while (Date.now() < Number(endAt)) {
  await pacer.take('background');
  grants.push(Date.now());
  pacer.report('ok');
}
db.close();
console.log(JSON.stringify(grants));
`,
  );
  return script;
}

function runGreedyProcess(script: string, args: string[]): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: paths.root });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) reject(new Error(`the pacer process exited ${code}: ${err}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '[]') as number[]);
    });
  });
}

describe('the pacer shared by two real processes', () => {
  it('keeps both together within the rate over any second, each getting its share', async () => {
    const dir = createTempDir('wpp-pacer-');
    dirs.push(dir);
    const databaseFile = join(dir, 'plugin.sqlite');
    // Migrated once before the processes start, as wpp serve's start does.
    openPluginDatabase({ databaseFile }, { notice: () => undefined }).close();
    const script = writeGreedyScript(dir);
    const rate = 50;
    // Both start at one moment after their start-up, and stop by themselves two seconds later.
    const startAt = Date.now() + 4000;
    const endAt = startAt + 2000;
    const args = [databaseFile, String(startAt), String(endAt), String(rate)];
    const [a, b] = await Promise.all([runGreedyProcess(script, args), runGreedyProcess(script, args)]);
    const all = [...a, ...b].sort((x, y) => x - y);
    // The bucket starts with a one-second burst; from then on tokens come at the rate, to both
    // together (a call waiting at the end may be granted a little after it: the span counts).
    // Each process takes its tokens in batches (a tenth of a second's worth) and stamps each
    // when it uses it: a process the machine left waiting between taking a batch and using it
    // may use a batch's worth later than it took it, hence one batch each of slack. Two
    // processes each with a bucket of its own would send twice the rate.
    const slack = 2 * (rate / 10) + 1;
    const spanSeconds = (all.at(-1)! - all[0]!) / 1000;
    expect(all.length).toBeLessThanOrEqual(Math.floor(rate * spanSeconds + rate + slack));
    expect(all.length).toBeGreaterThan(rate * spanSeconds * 0.8);
    for (const start of all.filter((at) => at >= startAt + 1000)) {
      expect(all.filter((at) => at >= start && at < start + 1000).length).toBeLessThanOrEqual(rate + slack);
    }
    expect(Math.min(a.length, b.length)).toBeGreaterThan(rate / 4);
  }, 30_000);
});
