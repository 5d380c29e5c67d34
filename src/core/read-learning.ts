/**
 * What the adaptive sync learns from a page of reads just stored: each website's smoothed
 * hit rate, its attack-spike state, the forecast of its limit and its next read time, and
 * each account's forecast (read-schedule.ts has the rules). Used by the adaptive tick and
 * the full sync alike, so either keeps the schedule and the forecasts current.
 */
import type {
  AccountForecast,
  ReadScheduleRepo,
  SchedulePage,
  ScheduleRow,
  ScheduleUpdate,
  WebsiteNotice,
} from '../db/read-schedule.repo.js';
import type { RecordedRead, StatisticsRepo } from '../db/statistics.repo.js';
import type { LimitResolver } from './limits.js';
import {
  DEFAULT_SPIKE_RULES,
  HIT_RATE_TAU_MS,
  limitReachedAt,
  nextSpikeState,
  planningRate,
  readInterval,
  smoothRate,
  type LimitStanding,
  type ScheduleRules,
  type SpikeRules,
  type SpikeState,
} from './read-schedule.js';

/** An attack spike newly noticed: for the notification URL. */
export type SpikeNotice = Omit<WebsiteNotice, 'id' | 'endedAt'>;

export interface LearnDeps {
  schedule: ReadScheduleRepo;
  stats: StatisticsRepo;
  limits: LimitResolver;
  rules: ScheduleRules;
  spikeRules?: SpikeRules;
}

interface WebsiteLearning {
  read: RecordedRead;
  previousRate: number | null;
  hitRate: number | null;
  planRate: number;
  spike: SpikeState | null;
  spikeStarted: boolean;
  spikeEnded: { startedAt: number } | null;
}

/** What one read measured: the smoothed hit rate, the rate to plan with, and the spike state. */
function learnWebsite(read: RecordedRead, at: number, spikeRules: SpikeRules, previous: ScheduleRow | null): WebsiteLearning {
  const elapsed = read.previousAt === null ? 0 : at - read.previousAt;
  const previousRate = previous?.hitRate ?? null;
  const before: SpikeState | null =
    previous && previous.blockedRecent !== null && previous.blockedBaseline !== null
      ? { recent: previous.blockedRecent, baseline: previous.blockedBaseline, since: previous.spikeSince }
      : null;
  if (!(elapsed > 0)) {
    // A first read: nothing to measure a rate over yet.
    return { read, previousRate, hitRate: previousRate, planRate: previousRate ?? 0, spike: before, spikeStarted: false, spikeEnded: null };
  }
  const measured = (read.delta.total * 1000) / elapsed;
  const hitRate = smoothRate(previousRate, measured, elapsed, HIT_RATE_TAU_MS);
  const spike = nextSpikeState(before, (read.delta.blocked * 1000) / elapsed, elapsed, at, spikeRules);
  return {
    read,
    previousRate,
    hitRate,
    planRate: planningRate(hitRate, measured),
    spike: { recent: spike.recent, baseline: spike.baseline, since: spike.since },
    spikeStarted: spike.started,
    spikeEnded: spike.ended && before?.since != null ? { startedAt: before.since } : null,
  };
}

/** An account's standing and smoothed rate, for its forecast and its group read. */
type AccountStanding = { standing: LimitStanding; smoothed: number; periodEnd: number };

/** Each account's standing against its aggregate limit, with the rates just measured (exempt or unlimited accounts left out). */
function accountStandingsOf(deps: LearnDeps, learned: WebsiteLearning[], at: number): Map<string, AccountStanding> {
  const { schedule, stats, limits } = deps;
  const accountStandings = new Map<string, AccountStanding>();
  const byAccount = new Map<string, WebsiteLearning[]>();
  for (const website of learned) {
    const group = byAccount.get(website.read.account);
    if (group) group.push(website);
    else byAccount.set(website.read.account, [website]);
  }
  for (const [account, websites] of byAccount) {
    const own = limits.forAccount(account);
    const period = limits.periodOf(account, at);
    const limit = own.exempt ? null : own.accountHits;
    if (limit === null) continue;
    let smoothed = schedule.accountRate(account);
    let planned = 0;
    for (const website of websites) {
      smoothed += (website.hitRate ?? 0) - (website.previousRate ?? 0);
      planned += website.planRate - (website.hitRate ?? 0);
    }
    smoothed = Math.max(0, smoothed);
    const standing = { usage: stats.accountHits(account, period.start), limit, ratePerSecond: smoothed + planned };
    accountStandings.set(account, { standing, smoothed, periodEnd: period.end });
  }

  return accountStandings;
}

/**
 * Learns from a page of reads just stored: each website's rates, spike state, forecast and
 * next read time, and each account's forecast; an account near its aggregate limit has all
 * its websites brought forward, to be read together. Returns the spikes newly noticed.
 */
export function learnFromReads(deps: LearnDeps, recorded: RecordedRead[], at: number): SpikeNotice[] {
  const { schedule, limits, rules } = deps;
  const spikeRules = deps.spikeRules ?? DEFAULT_SPIKE_RULES;
  const learned = recorded.map((read) => learnWebsite(read, at, spikeRules, schedule.get(read.domain)));

  const accountStandings = accountStandingsOf(deps, learned, at);

  const page: SchedulePage = { websites: [], accounts: [], groups: [], spikesStarted: [], spikesEnded: [] };
  for (const website of learned) {
    const { read } = website;
    const own = limits.forWebsite(read.domain, read.account);
    const period = limits.periodOf(read.account, at);
    const websiteStanding: LimitStanding = {
      usage: read.usage,
      limit: own.exempt ? null : own.websiteHits,
      ratePerSecond: website.planRate,
    };
    const accountStanding = accountStandings.get(read.account)?.standing;
    const standings = accountStanding ? [websiteStanding, accountStanding] : [websiteStanding];
    const interval = readInterval(standings, rules, website.hitRate !== null);
    const update: ScheduleUpdate = {
      domain: read.domain,
      nextReadAt: at + interval,
      lastReadAt: at,
      hitRate: website.hitRate,
      blockedRecent: website.spike?.recent ?? null,
      blockedBaseline: website.spike?.baseline ?? null,
      spikeSince: website.spike?.since ?? null,
      limitReachedAt: limitReachedAt({ ...websiteStanding, ratePerSecond: website.hitRate ?? 0 }, at, period.end),
      periodEnd: period.end,
    };
    page.websites.push(update);
    if (website.spikeStarted && website.spike) {
      page.spikesStarted.push({
        domain: read.domain,
        account: read.account,
        kind: 'attack_spike',
        startedAt: at,
        blockedPerHour: Math.round(website.spike.recent * 3600),
        baselinePerHour: Math.round(website.spike.baseline * 3600),
      });
    }
    if (website.spikeEnded) page.spikesEnded.push({ domain: read.domain, startedAt: website.spikeEnded.startedAt, at });
  }
  for (const [account, { standing, smoothed, periodEnd }] of accountStandings) {
    const forecast: AccountForecast = {
      account,
      hitRate: smoothed,
      limitReachedAt: limitReachedAt({ ...standing, ratePerSecond: smoothed }, at, periodEnd),
      periodEnd,
      updatedAt: at,
    };
    page.accounts.push(forecast);
    // Near its aggregate limit, the group is read together: no website of it lags the others.
    const groupInterval = readInterval([standing], rules);
    if (groupInterval < rules.maxAgeMs / 2) page.groups.push({ account, readBy: at + groupInterval });
  }
  return schedule.save(page);
}
