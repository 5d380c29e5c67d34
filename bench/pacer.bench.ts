/**
 * What the pacer costs per provider call (issue 23, docs/fleet.md "One budget per server"):
 * taking one token from the bucket in memory, and from the bucket shared through the plugin's
 * SQLite file (one IMMEDIATE transaction per batch of tokens), on a real file in WAL mode.
 *
 * Time is simulated (each take comes 1000/rate ms after the one before, so a token is always
 * there): what is timed is the pacer's own work, not waiting for the rate. Timed, `rounds`
 * times, `takes` tokens each at WPP_SYNC_RATE's default (40 a second: batches of 4) and at
 * 400 a second (batches of 8). Reports the medians in microseconds per token, and the
 * transactions per token.
 *
 *   npm run bench -- pacer [--takes 20000] [--rounds 5]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createMemoryBucket, createSharedBucket, type BucketStore, type TokenSource } from '../src/core/pacer.js';
import { createPacerBucketRepo } from '../src/db/pacer-bucket.repo.js';
import { openPluginDatabase } from '../src/db/plugin-database.js';
import { createTempDir, removeTempDir } from './lib/temp.js';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Microseconds per token over `takes` tokens, each 1000/rate simulated ms after the one before. */
function timeTakes(source: TokenSource, rate: number, takes: number, start: number): number {
  let now = start;
  const began = process.hrtime.bigint();
  for (let i = 0; i < takes; i++) {
    now += 1000 / rate;
    if (!source.take(Math.ceil(now)).granted) throw new Error(`token ${i} not granted at ${now}`);
    source.report('ok', Math.ceil(now));
  }
  return Number(process.hrtime.bigint() - began) / 1000 / takes;
}

export async function run(argv: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({ args: argv, options: { takes: { type: 'string' }, rounds: { type: 'string' } } });
  const takes = Number(values.takes ?? 20_000);
  const rounds = Number(values.rounds ?? 5);
  const dir = createTempDir('wpp-bench-pacer-');
  const db = openPluginDatabase({ databaseFile: join(dir, 'plugin.sqlite') }, { notice: () => undefined });
  try {
    const result: Record<string, unknown> = { takes, rounds };
    for (const rate of [40, 400]) {
      const settings = { floor: 1, ceiling: rate, increasePerSecond: 0 };
      const memory: number[] = [];
      const shared: number[] = [];
      let transactions = 0;
      for (let round = 0; round < rounds; round++) {
        const start = round * 10_000_000;
        memory.push(timeTakes(createMemoryBucket(settings, start), rate, takes, start));
        const repo = createPacerBucketRepo(db, `bench-${rate}-${round}`);
        let counted = 0;
        const store: BucketStore = {
          update: (change) => {
            counted++;
            return repo.update(change);
          },
        };
        shared.push(timeTakes(createSharedBucket(store, settings), rate, takes, start));
        transactions = counted / takes;
        console.error(`rate ${rate} round ${round + 1}: memory ${memory.at(-1)!.toFixed(2)} µs, shared ${shared.at(-1)!.toFixed(2)} µs`);
      }
      result[`memory_us_per_token_at_${rate}`] = Number(median(memory).toFixed(2));
      result[`shared_us_per_token_at_${rate}`] = Number(median(shared).toFixed(2));
      result[`transactions_per_token_at_${rate}`] = Number(transactions.toFixed(3));
    }
    return result;
  } finally {
    db.close();
    removeTempDir(dir);
  }
}
