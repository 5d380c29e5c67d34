/**
 * Enforcement: turns the quota decisions into provider calls and local state, recording
 * every pause, resume and warning in enforcement_actions. An action is keyed so that a
 * pass repeated, or resumed after a crash half-way, records and sends each thing once.
 */
import PQueue from 'p-queue';
import type { Logger } from 'pino';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { StatisticsRepo } from '../db/statistics.repo.js';
import type { EnforcementAction } from './types.js';
import { AppError, describeError } from '../errors.js';
import type { ProviderClient } from '../provider/index.js';
import { acquireJobLock, runExclusive } from './job-lock.js';
import { createLimitResolver, type LimitResolver } from './limits.js';
import { decide, type Decision, type EffectiveLimits, type Period, type QuotaWebsite } from './quota.js';
import { quotaStanding, type WebsiteQuota } from './quota-level.js';
import { createPoolReader, type PoolReader } from './reseller-limits.js';
import { undoneBy, undoneReason, type HostPauseUndone } from './host-pause.js';
import type { ServingCheck } from './serving-server.js';
import type { Website } from './types.js';

/** The lock an enforcement pass holds (one at a time across processes), and the name of its job_runs rows. */
export const ENFORCE_LOCK = 'enforce';

export interface EnforcementDeps {
  stats: StatisticsRepo;
  accounts: AccountsRepo;
  provider: ProviderClient;
  logger: Logger;
  now: () => number;
  /** Receives every action newly recorded (for the notification URL). */
  notify?: (action: Omit<EnforcementAction, 'id'> & { forecastAt?: number | null }) => void;
  /** Accounts enforced at once (their provider calls overlap). Default 1. */
  concurrency?: number;
  /**
   * When a limit will be reached at the current rate (the adaptive sync's forecast): the
   * account's aggregate limit when `domain` is null. A warning's notification carries it.
   */
  forecastOf?: (account: string, domain: string | null, periodEnd: number) => number | null;
  /** Judges the record read before a pause: a website another server serves now is left alone (core/serving-server.ts). */
  servingCheck?: Pick<ServingCheck, 'servedElsewhereBy'> | null;
}

export interface EnforceResult {
  paused: number;
  resumed: number;
  warnings: number;
  /** Pauses and resumes not made: the provider showed the website already paused, or resumed, outside the plugin. */
  leftAlone: number;
  failed: number;
  runId: number;
}

type Recorded = Omit<EnforcementAction, 'id'>;
/** What every action of one decision records alike: who, when, against which usage, limit and period. */
type ActionBase = Pick<Recorded, 'at' | 'account' | 'domain' | 'actor' | 'usage' | 'limitValue' | 'periodStart' | 'periodEnd'>;

/** The quota snapshot of every active website of an account, from what the pass resolved anyway. */
function quotasOf(account: string, period: Period, accountLimits: EffectiveLimits, websites: QuotaWebsite[]): WebsiteQuota[] {
  const accountUsage = websites.reduce((sum, website) => sum + website.usage, 0);
  return websites.map((website) => {
    const standing = quotaStanding({ usage: website.usage, websiteLimits: website.limits, accountUsage, accountLimits });
    return {
      domain: website.domain,
      account,
      periodStart: period.start,
      periodEnd: period.end,
      usage: website.usage,
      websiteLimit: website.limits.websiteHits,
      accountUsage,
      accountLimit: accountLimits.accountHits,
      warningPercent: standing.warningPercent,
      level: standing.level,
    };
  });
}

/** A warning is recorded once per website, account or (for each of its accounts) reseller pool, and period. */
function warningKey(decision: Extract<Decision, { kind: 'warning' }>, account: string, period: Period): string {
  if (decision.reason === 'reseller_warning') return `warning:reseller:${decision.pool.reseller}:${account}:${decision.pool.periodStart}`;
  return `warning:${decision.domain ?? `account:${account}`}:${period.start}`;
}

/** One pass's shared reads: the limits table, and the reseller pools read from it. */
interface PassReads {
  limits: LimitResolver;
  pools: PoolReader;
}

export function createEnforcement(deps: EnforcementDeps) {
  const { stats, accounts, logger, now } = deps;
  // Every provider call keeps to the server's request budget through the client (docs/fleet.md,
  // "One budget per server"), however many accounts run at once.
  const provider = {
    setWebsiteStatus: (domain: string, status: 'online' | 'paused') => deps.provider.setWebsiteStatus(domain, status),
    lookupWebsite: (domain: string) => deps.provider.lookupWebsite(domain),
  };

  const record = (action: Recorded, extra: { forecastAt?: number | null } = {}): boolean => {
    const fresh = stats.recordAction(action);
    if (fresh) deps.notify?.({ ...action, ...extra });
    return fresh;
  };

  /**
   * The admin pages' read model, written in batches of about a thousand websites (one
   * transaction each, not one per account: a tick enforces hundreds of small accounts).
   * Failing to write it must not stop enforcement itself.
   */
  const quotaSnapshots = () => {
    const pending: WebsiteQuota[] = [];
    const flush = () => {
      if (pending.length === 0) return;
      try {
        stats.saveQuotas(pending.splice(0), now());
      } catch (error) {
        logger.warn({ error: describeError(error) }, 'quota snapshots not saved; written again next pass');
      }
    };
    return {
      add(quotas: WebsiteQuota[]): void {
        pending.push(...quotas);
        if (pending.length >= 1000) flush();
      },
      flush,
    };
  };

  async function setStatus(website: Website, status: 'online' | 'paused'): Promise<string | null> {
    const answer = await provider.setWebsiteStatus(website.domain, status);
    return answer.status ?? null;
  }

  /**
   * The website's status at the provider now. The local row can be stale (a callback lost,
   * the plugin down while the customer paused the website in the provider's dashboard), and
   * a pause or resume based on it would take over, or undo, somebody else's choice.
   */
  async function statusAtProvider(website: Website): Promise<string | null> {
    const remote = await provider.lookupWebsite(website.domain);
    // What was asked for, where the provider says (a website waiting for DNS shows pending_dns either way).
    return remote.requested_status ?? remote.status ?? null;
  }

  /** As statusAtProvider, for a pause: null when another server serves the website now (then this one left it alone). */
  async function statusBeforePause(website: Website): Promise<{ status: string | null } | null> {
    const remote = await provider.lookupWebsite(website.domain);
    if (deps.servingCheck?.servedElsewhereBy(website, remote)) return null;
    return { status: remote.requested_status ?? remote.status ?? null };
  }

  /** Pauses a website over its limit, unless it was paused outside the plugin (then left alone). */
  async function pauseWebsite(
    decision: Extract<Decision, { kind: 'pause' }>,
    website: Website,
    base: ActionBase,
    period: Period,
    at: number,
  ): Promise<'done' | 'left_alone'> {
    const before = await statusBeforePause(website);
    if (before === null) return 'left_alone';
    const remote = before.status;
    if (remote === 'paused') {
      // Paused outside the plugin: that pause is not enforcement's to claim, nor later to undo.
      accounts.saveWebsite({
        ...website,
        desiredStatus: 'paused',
        pausedBy: 'external',
        providerStatus: remote,
        providerCheckedAt: at,
      });
      logger.info({ domain: website.domain }, 'website already paused outside the plugin: enforcement leaves it alone');
      return 'left_alone';
    }
    record({
      ...base,
      action: 'pause',
      reason: decision.reason,
      statusBefore: website.desiredStatus,
      statusAfter: 'paused',
      actionKey: `pause:${website.domain}:${period.start}:${decision.reason}:${decision.limit}`,
    });
    const providerStatus = await setStatus(website, 'paused');
    accounts.saveWebsite({
      ...website,
      desiredStatus: 'paused',
      pausedBy: 'enforcement',
      enforcementPausedPeriod: period.start,
      providerStatus,
      providerCheckedAt: at,
    });
    logger.info(
      { domain: website.domain, reason: decision.reason, usage: decision.usage, limit: decision.limit },
      'website paused by enforcement',
    );
    return 'done';
  }

  /** Resumes a website enforcement paused, unless it was resumed outside the plugin (then left alone). */
  async function resumeWebsite(
    decision: Extract<Decision, { kind: 'resume' }>,
    website: Website,
    base: ActionBase,
    period: Period,
    at: number,
  ): Promise<'done' | 'left_alone'> {
    const remote = await statusAtProvider(website);
    if (remote === 'online') {
      // Resumed outside the plugin already: nothing to send, and no resume of enforcement's to record.
      accounts.saveWebsite({
        ...website,
        desiredStatus: 'online',
        pausedBy: null,
        enforcementPausedPeriod: null,
        providerStatus: remote,
        providerCheckedAt: at,
      });
      logger.info({ domain: website.domain }, 'website already resumed outside the plugin');
      return 'left_alone';
    }
    record({
      ...base,
      action: 'resume',
      reason: decision.reason,
      statusBefore: website.desiredStatus,
      statusAfter: 'online',
      actionKey: `resume:${website.domain}:${website.enforcementPausedPeriod ?? 0}:${period.start}:${decision.limit ?? 'none'}`,
    });
    const providerStatus = await setStatus(website, 'online');
    accounts.saveWebsite({
      ...website,
      desiredStatus: 'online',
      pausedBy: null,
      enforcementPausedPeriod: null,
      providerStatus,
      providerCheckedAt: at,
    });
    logger.info({ domain: website.domain, reason: decision.reason }, 'website resumed by enforcement');
    return 'done';
  }

  /** Carries out one decision: `left_alone` when the provider showed someone else had already acted. */
  async function apply(
    decision: Decision,
    website: Website | null,
    account: string,
    period: Period,
    at: number,
  ): Promise<'done' | 'left_alone' | 'none'> {
    const base: ActionBase = {
      at,
      account,
      domain: decision.domain,
      actor: 'enforcement',
      usage: decision.usage,
      limitValue: decision.limit,
      periodStart: period.start,
      periodEnd: period.end,
    };
    switch (decision.kind) {
      case 'warning':
        record(
          {
            ...base,
            action: 'warning',
            reason: decision.reason,
            statusBefore: website?.desiredStatus ?? null,
            statusAfter: website?.desiredStatus ?? null,
            actionKey: warningKey(decision, account, period),
          },
          // The forecasts are of a website's and an account's limits: none is made of a reseller's pool.
          deps.forecastOf && decision.reason !== 'reseller_warning'
            ? { forecastAt: deps.forecastOf(account, decision.domain, period.end) }
            : {},
        );
        return 'done';
      case 'pause':
        return website ? pauseWebsite(decision, website, base, period, at) : 'none';
      case 'resume':
        return website ? resumeWebsite(decision, website, base, period, at) : 'none';
    }
  }

  /**
   * One account's decisions on its stored usage, each with the website it names; its quota
   * snapshots go to `snapshots`. Synchronous and apart from the provider calls that follow, so
   * only the websites a decision names are held while those calls run, not the account's every
   * row (held that long, a pass's rows are promoted to V8's old generation).
   */
  function decideAccount(account: string, { limits, pools }: PassReads, snapshots: ReturnType<typeof quotaSnapshots>, at: number) {
    const accountLimits = limits.forAccount(account);
    const period = limits.periodOf(account, at);
    const usage = new Map(stats.accountUsage(account, period.start).map((row) => [row.domain, row.hits]));
    const websites = accounts.websitesOf(account).filter((website) => website.state === 'active');
    const byDomain = new Map(websites.map((website) => [website.domain, website]));
    const quotaWebsites = websites.map((website) => ({
      domain: website.domain,
      desiredStatus: website.desiredStatus,
      pausedBy: website.pausedBy,
      usage: usage.get(website.domain) ?? 0,
      limits: limits.forWebsite(website.domain, account),
      adminOverrideUntil: website.adminOverrideUntil,
      enforcementPausedPeriod: website.enforcementPausedPeriod,
    }));
    snapshots.add(quotasOf(account, period, accountLimits, quotaWebsites));
    const pool = pools.poolOf(account);
    const decisions = decide({ account, limits: accountLimits, period, websites: quotaWebsites, pool }, at).map((decision) => ({
      decision,
      website: decision.domain ? (byDomain.get(decision.domain) ?? null) : null,
    }));
    return { period, decisions };
  }

  /** Decides and carries out one account's pauses, resumes and warnings on its stored usage, counting them into `result`. */
  async function enforceAccount(
    account: string,
    reads: PassReads,
    result: Omit<EnforceResult, 'runId'>,
    snapshots: ReturnType<typeof quotaSnapshots>,
  ): Promise<void> {
    const at = now();
    const { period, decisions } = decideAccount(account, reads, snapshots, at);
    for (const { decision, website } of decisions) {
      try {
        const outcome = await apply(decision, website, account, period, at);
        if (outcome === 'left_alone') result.leftAlone++;
        else if (outcome === 'none') continue;
        else if (decision.kind === 'pause') result.paused++;
        else if (decision.kind === 'resume') result.resumed++;
        else result.warnings++;
      } catch (error) {
        result.failed++;
        logger.warn(
          { account, domain: decision.domain, decision: decision.kind, error: describeError(error) },
          'enforcement action failed; tried again next pass',
        );
      }
    }
  }

  /** Runs `enforceAccount` over these accounts, `concurrency` at a time; one account's decisions run in order. */
  async function enforceEach(list: string[], reads: PassReads, result: Omit<EnforceResult, 'runId'>): Promise<void> {
    // Accounts are independent (each has its own limits and period; a reseller's pool is read once for the pass).
    const accountQueue = new PQueue({ concurrency: deps.concurrency ?? 1 });
    const snapshots = quotaSnapshots();
    try {
      await accountQueue.addAll(list.map((account) => () => enforceAccount(account, reads, result, snapshots)));
    } catch (error) {
      // Nothing more starts; what runs finishes before the caller records the failure.
      accountQueue.clear();
      await accountQueue.onIdle();
      throw error;
    } finally {
      snapshots.flush();
    }
  }

  /** The limits table, the accounts' plans and resellers (one query) and their pools (one more), read once for the accounts of a pass. */
  const passReads = (list: readonly string[]): PassReads => {
    const limits = createLimitResolver(stats, accounts);
    return { limits, pools: createPoolReader({ stats, accounts }, limits, now(), list) };
  };

  /**
   * The accounts a tick read, and every other account of a reseller whose pool they used up:
   * the whole pool pauses together, as an account's aggregate pauses all its websites. Below
   * the pool nothing is added; the full pass resumes and warns everyone.
   */
  function withPoolMates(list: string[], { limits, pools }: PassReads): string[] {
    const usedUp = new Set<string>();
    for (const account of list) {
      const pool = pools.poolOf(account);
      if (pool?.limit != null && pool.usage >= pool.limit) usedUp.add(pool.reseller);
    }
    const mates = accounts.accountsOfResellers([...usedUp]);
    limits.prime(mates);
    return [...new Set([...list, ...mates])];
  }

  async function enforcePass(): Promise<EnforceResult> {
    const runId = stats.startRun(ENFORCE_LOCK, now());
    const result: EnforceResult = { paused: 0, resumed: 0, warnings: 0, leftAlone: 0, failed: 0, runId };
    try {
      const list = accounts.accountsWithWebsites();
      await enforceEach(list, passReads(list), result);
      stats.finishRun(runId, now(), { status: 'ok', details: result });
      return result;
    } catch (error) {
      stats.finishRun(runId, now(), { status: 'failed', details: { error: describeError(error) } });
      throw error;
    }
  }

  return {
    /**
     * One pass over every account with active websites. A failing website is counted and left
     * for the next pass. One pass at a time across processes: while another holds the lock,
     * this one records a skipped run and throws LockHeldError.
     */
    enforceLimits: (): Promise<EnforceResult> => runExclusive(stats, ENFORCE_LOCK, logger, now, enforcePass),

    /**
     * Enforces just these accounts, on the reads the adaptive sync has just stored: no
     * job_runs row (a tick records its own). `skipped` while another process holds the lock.
     */
    async enforceAccounts(list: string[]): Promise<Omit<EnforceResult, 'runId'> & { skipped: boolean }> {
      const result = { paused: 0, resumed: 0, warnings: 0, leftAlone: 0, failed: 0, skipped: false };
      const lock = acquireJobLock(stats, ENFORCE_LOCK, logger);
      if (!lock.taken) return { ...result, skipped: true };
      try {
        const reads = passReads(list);
        await enforceEach(withPoolMates(list, reads), reads, result);
        return result;
      } finally {
        lock.release();
      }
    },

    /**
     * Records a host pause undone at the provider, which provisioning pauses again: who undid
     * it, which pause, and what the provider showed; the notification URL hears of it. Once per
     * undo, however often it is read (a callback and the reconcile pass).
     */
    recordRepause({ website, pausedBy, shownStatus, undoneAt }: HostPauseUndone): boolean {
      const at = now();
      const period = createLimitResolver(stats, accounts).periodOf(website.account, at);
      return record({
        at,
        account: website.account,
        domain: website.domain,
        action: 'repause',
        actor: undoneBy(website),
        reason: undoneReason(pausedBy),
        usage: stats.websiteUsage(website.domain, period.start),
        limitValue: null,
        periodStart: period.start,
        periodEnd: period.end,
        statusBefore: shownStatus,
        statusAfter: 'paused',
        actionKey: `repause:${website.domain}:${undoneAt}`,
      });
    },

    /**
     * An admin resumes a website enforcement paused: it stays online for the rest of the
     * period whatever its usage; enforcement takes over again in the next period.
     * Only an admin may (a reseller never ends the host's limit pauses: core/protection.ts).
     */
    async adminResume(domain: string, admin: string): Promise<Website> {
      const website = accounts.getWebsite(domain);
      if (!website || website.state !== 'active') throw new AppError('NOT_FOUND', `${domain} is not a website the plugin protects`);
      const at = now();
      const period = createLimitResolver(stats, accounts).periodOf(website.account, at);
      record({
        at,
        account: website.account,
        domain,
        action: 'admin_resume',
        actor: `admin:${admin}`,
        reason: 'admin_override',
        usage: stats.websiteUsage(domain, period.start),
        limitValue: null,
        periodStart: period.start,
        periodEnd: period.end,
        statusBefore: website.desiredStatus,
        statusAfter: 'online',
        actionKey: `admin_resume:${domain}:${period.start}:${at}`,
      });
      const providerStatus = await setStatus(website, 'online');
      const next = {
        ...website,
        desiredStatus: 'online' as const,
        pausedBy: null,
        enforcementPausedPeriod: null,
        adminOverrideUntil: period.end,
        providerStatus,
        providerCheckedAt: at,
      };
      accounts.saveWebsite(next);
      return { ...next, updatedAt: at };
    },
  };
}

export type Enforcement = ReturnType<typeof createEnforcement>;
