/**
 * Reseller pools at fleet size (issue 22): what reading the pools costs an enforcement pass
 * and a page, on a real SQLite file.
 *
 * Not timed: the plugin's database is seeded with `websites` websites, 10 per account, their
 * accounts shared among `resellers` resellers (every one with a pool), and one usage row per
 * website in the current monthly period; `offPeriod` of the accounts are on a daily plan, so
 * the pool counts them from their hourly rows (24 per website). Every account holds a sealed
 * provider API key, as a deployed plugin's customers do.
 *
 * Timed, `rounds` times: one pass's pool reads (createPoolReader given the pass's accounts and
 * asked for every one, as enforcement does: each reseller's pool read once; the accounts' plans
 * and resellers are read on the way, which the pass's limit resolver then shares), `resellerUsageNow` of the biggest
 * reseller (what a page shows), and `resellerPoolsOf` for one admin page of 50 accounts
 * (the admin's accounts and websites pages). Reports the medians in ms.
 *
 *   npm run bench -- reseller-pool [--websites 100000] [--resellers 20] [--off-period 0.01] [--rounds 5]
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLimitResolver } from '../src/core/limits.js';
import { periodAt } from '../src/core/quota.js';
import { createPoolReader, resellerPoolsOf, resellerUsageNow } from '../src/core/reseller-limits.js';
import { createAccountsRepo } from '../src/db/accounts.repo.js';
import { createKeyBox, type KeyBox } from '../src/db/api-keys.js';
import { migrate } from '../src/db/migrate.js';
import { openDatabase, type Db } from '../src/db/open.js';
import { createStatisticsRepo } from '../src/db/statistics.repo.js';
import { paths } from '../src/paths.js';
import { median, round1 } from './lib/stats.js';
import { createTempDir, removeTempDir } from './lib/temp.js';

const HOUR_MS = 3_600_000;
const WEBSITES_PER_ACCOUNT = 10;
/** The accounts an admin page lists at once. */
const PAGE_ACCOUNTS = 50;

/** Accounts, websites, usage rows and (for the accounts on a daily plan) hourly rows, in one transaction. */
function seed(db: Db, keys: KeyBox, options: { websites: number; resellers: number; offPeriod: number }, now: number): void {
  const month = periodAt(now, 'monthly');
  const day = periodAt(now, 'daily');
  const accounts = Math.ceil(options.websites / WEBSITES_PER_ACCOUNT);
  const offEvery = options.offPeriod > 0 ? Math.round(1 / options.offPeriod) : 0;
  const account = db.prepare(
    "INSERT INTO accounts (account, plan, provider_user_id, provider_api_key, state, reseller, created_at, updated_at) VALUES (?, ?, ?, ?, 'active', ?, 0, 0)",
  );
  const website = db.prepare(
    "INSERT INTO websites (domain, account, desired_status, callback_token_hash, created_at, updated_at) VALUES (?, ?, 'online', ?, 0, 0)",
  );
  const usage = db.prepare('INSERT INTO usage (domain, period_start, account, hits, updated_at) VALUES (?, ?, ?, ?, 0)');
  const hourly = db.prepare('INSERT INTO hits_hourly (domain, account, hour, total) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (let a = 0; a < accounts; a++) {
      const name = `acct${a}`;
      const daily = offEvery > 0 && a % offEvery === 0;
      account.run(name, daily ? 'Daily' : null, `${name}@panel.example`, keys.seal(`key-${name}`, name), `r${a % options.resellers}`);
      for (let w = 0; w < WEBSITES_PER_ACCOUNT && a * WEBSITES_PER_ACCOUNT + w < options.websites; w++) {
        const domain = `w${a}-${w}.example`;
        website.run(domain, name, `hash-${domain}`);
        usage.run(domain, daily ? day.start : month.start, name, 100);
        if (daily) for (let h = 0; h < 24; h++) hourly.run(domain, name, Math.floor(month.start / HOUR_MS) + h, 5);
      }
    }
  })();
  const stats = createStatisticsRepo(db);
  stats.setLimits('plan', 'Daily', { period: 'daily' });
  for (let r = 0; r < options.resellers; r++) stats.setLimits('reseller', `r${r}`, { accountHits: 1_000_000 });
}

function timed(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function run(args: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({
    args,
    options: {
      websites: { type: 'string', default: '100000' },
      resellers: { type: 'string', default: '20' },
      'off-period': { type: 'string', default: '0.01' },
      rounds: { type: 'string', default: '5' },
    },
  });
  const options = { websites: Number(values.websites), resellers: Number(values.resellers), offPeriod: Number(values['off-period']) };
  const dir = createTempDir('wpp-bench-reseller-pool-');
  const db = openDatabase(join(dir, 'plugin.sqlite'));
  try {
    migrate(db, paths.migrations);
    const now = Date.UTC(2026, 10, 22, 12);
    const keys = createKeyBox(randomBytes(32));
    seed(db, keys, options, now);
    const stats = createStatisticsRepo(db);
    const accounts = createAccountsRepo(db, Date.now, keys);
    const allAccounts = accounts.accountsWithWebsites();
    const pageAccounts = allAccounts.slice(0, PAGE_ACCOUNTS);
    const passes: number[] = [];
    const pages: number[] = [];
    const adminPages: number[] = [];
    let pooledHits = 0;
    for (let round = 0; round < Number(values.rounds); round++) {
      passes.push(
        timed(() => {
          const pools = createPoolReader({ stats, accounts }, createLimitResolver(stats, accounts), now, allAccounts);
          for (const account of allAccounts) pools.poolOf(account);
        }),
      );
      pages.push(timed(() => void (pooledHits = resellerUsageNow({ stats, accounts }, 'r0', now).hits)));
      adminPages.push(timed(() => void resellerPoolsOf({ stats, accounts }, pageAccounts, now)));
      console.error(
        `round ${round + 1}: pass ${round1(passes.at(-1) ?? 0)} ms, page ${round1(pages.at(-1) ?? 0)} ms, admin page ${round1(adminPages.at(-1) ?? 0)} ms`,
      );
    }
    return {
      ...options,
      accounts: allAccounts.length,
      pass_pool_reads_ms: round1(median(passes)),
      reseller_usage_page_ms: round1(median(pages)),
      admin_page_pools_ms: round1(median(adminPages)),
      biggest_reseller_hits: pooledHits,
    };
  } finally {
    db.close();
    removeTempDir(dir);
  }
}
