/**
 * Monitoring first, then protecting. The spec's `paused` is the provider's monitoring mode:
 * traffic reaches the website and is watched, nothing is blocked. A plan (its days), a bulk
 * protect run or an import (the run's days) can start new websites there, so a host rolls
 * protection out without surprises; when the days are over, the schedule switches each to
 * `online`. A website in monitoring is one the plugin asks to be paused with nobody's pause
 * (pausedBy null): every pause somebody made (the customer, an admin, a suspension, the hit
 * limit) has its owner, and the switch never ends one of those.
 */
import { z } from 'zod';
import type { Logger } from 'pino';
import type { AccountsRepo } from '../db/accounts.repo.js';
import type { MonitoringRepo } from '../db/monitoring.repo.js';
import { describeError } from '../errors.js';
import type { ProviderClient } from '../provider/index.js';
import type { Translate } from './i18n.js';
import type { Plan, Website } from './types.js';
import { DAY_MS } from '../time.js';

/** A quarter of a year: long enough to watch a season's traffic, short enough not to forget a website unprotected. */
export const MONITOR_DAYS_MAX = 90;

/** Days of monitoring as a plan or a run sets them: whole days, 0 (protect at once) to MONITOR_DAYS_MAX. */
export const monitorDaysSchema = z.coerce
  .number({ error: 'is not a number of days' })
  .int('is a whole number of days')
  .min(0, 'is at least 0 (0: protect at once)')
  .max(MONITOR_DAYS_MAX, `is at most ${MONITOR_DAYS_MAX} days`);

/** A problem of monitorDaysSchema in the reader's language (the schema's own words stay the API's and the CLI's). */
export function monitorDaysMessage(issue: z.core.$ZodIssue, t: Translate): string {
  if (issue.code === 'too_big') return t('monitorDays.atMost', { max: MONITOR_DAYS_MAX });
  if (issue.code === 'too_small') return t('monitorDays.atLeast');
  if (issue.code === 'invalid_type' && issue.expected === 'int') return t('monitorDays.notWhole');
  if (issue.code === 'invalid_type') return t('monitorDays.notNumber');
  return issue.message;
}

/** Whether the website is in monitoring: asked to be paused, and by nobody (every other pause names who made it). */
export const isMonitoring = (website: Pick<Website, 'state' | 'desiredStatus' | 'pausedBy'>): boolean =>
  website.state === 'active' && website.desiredStatus === 'paused' && website.pausedBy === null;

export interface MonitoringDeps {
  repo: MonitoringRepo;
  accounts: Pick<AccountsRepo, 'getAccount' | 'getPlan' | 'getWebsite' | 'saveWebsite'>;
  provider: Pick<ProviderClient, 'setWebsiteStatus'>;
  logger: Logger;
  now: () => number;
  /** The plan of accounts that name none, or an unknown one. */
  defaultPlan: string;
  /** Told of each website the switch made protecting (the customer's mail, core/mail.ts). */
  onSwitched?: ((website: { domain: string; account: string }) => void) | undefined;
}

/** What one scheduled switch did. */
export interface MonitoringSwitch {
  /** Switched to protecting (`online` at the provider). */
  protected: number;
  /** Left paused because a hit limit is reached: handed to enforcement, which resumes it when the period rolls over or the limit is raised. */
  heldByLimit: number;
  /** Monitoring ended under somebody else's pause (or after Protect now): that pause stays. */
  ended: number;
  /** The provider did not take the switch: tried again at the next run. */
  failed: number;
}

/** Websites switched per run: a run over a large roll-out ends in bounded time; the rest follow at the next. */
const SWITCH_BATCH = 500;

export function createMonitoring(deps: MonitoringDeps) {
  const { repo, accounts, logger, now } = deps;

  const planOf = (account: string): Plan | null => {
    const name = accounts.getAccount(account)?.plan ?? deps.defaultPlan;
    return accounts.getPlan(name) ?? accounts.getPlan(deps.defaultPlan);
  };
  const planDays = (account: string): number => planOf(account)?.monitorDays ?? 0;

  /** Hands a due website whose hit limit is reached to enforcement: paused by the limit of the period, not switched on. */
  function holdForLimit(website: Website, periodStart: number | null): void {
    accounts.saveWebsite({ ...website, pausedBy: 'enforcement', enforcementPausedPeriod: periodStart });
    repo.remove(website.domain);
    logger.info({ domain: website.domain }, 'monitoring over, but the hit limit is reached: stays paused until the limit allows');
  }

  async function switchOn(website: Website, at: number): Promise<boolean> {
    let providerStatus: string | null;
    try {
      providerStatus = (await deps.provider.setWebsiteStatus(website.domain, 'online')).status ?? null;
    } catch (error) {
      logger.warn({ domain: website.domain, error: describeError(error) }, 'monitoring over, but the provider did not switch it on');
      return false;
    }
    // Read again: a pause made while the provider answered is its owner's, and wins.
    const current = accounts.getWebsite(website.domain);
    if (current && isMonitoring(current))
      accounts.saveWebsite({ ...current, desiredStatus: 'online', pausedBy: null, providerStatus, providerCheckedAt: at });
    repo.remove(website.domain);
    logger.info({ domain: website.domain, account: website.account }, 'monitoring over: website now protected');
    deps.onSwitched?.({ domain: website.domain, account: website.account });
    return true;
  }

  return {
    /** The days of the account's plan (its plan, else the default plan; 0 when neither sets any). */
    planDays,

    /**
     * Records a run's choice for these websites: `days` for all, or null for each one's plan's
     * days. 0 is a choice too (protect at once, whatever the plan says).
     */
    choose(websites: readonly { domain: string; account: string }[], days: number | null, chosenBy: string): void {
      const at = now();
      repo.save(websites.map(({ domain, account }) => ({ domain, until: at + (days ?? planDays(account)) * DAY_MS, chosenBy })));
    },

    /** When the website's monitoring ends, if it is still to come; null otherwise. */
    untilOf(domain: string): number | null {
      const choice = repo.get(domain);
      return choice && choice.until > now() ? choice.until : null;
    },

    /**
     * At a new website's set-up: when its monitoring ends, or null to protect it at once. A
     * run's choice wins; without one the plan's days start now (and are recorded, so a replay
     * of the set-up keeps the same end).
     */
    startFor(domain: string, plan: Plan): number | null {
      const choice = repo.get(domain);
      if (choice) return choice.until > now() ? choice.until : null;
      if (plan.monitorDays <= 0) return null;
      const until = now() + plan.monitorDays * DAY_MS;
      repo.save([{ domain, until, chosenBy: `plan:${plan.name}` }]);
      return until;
    },

    /** Monitoring ends now (the website was protected by hand). */
    end: (domain: string): void => repo.remove(domain),

    /**
     * The scheduled switch: every website whose monitoring is over goes to protecting, unless
     * somebody else's pause holds it (that pause stays, the monitoring just ends) or its hit
     * limit is reached (then it stays paused, by the limit). Running it again changes nothing.
     */
    async switchDue(): Promise<MonitoringSwitch> {
      const result: MonitoringSwitch = { protected: 0, heldByLimit: 0, ended: 0, failed: 0 };
      const at = now();
      for (const due of repo.due(at, SWITCH_BATCH)) {
        const website = accounts.getWebsite(due.domain);
        if (!website || !isMonitoring(website)) {
          repo.remove(due.domain);
          result.ended++;
        } else if (due.quotaLevel === 'over' && due.periodEnd !== null && due.periodEnd > at) {
          holdForLimit(website, due.periodStart);
          result.heldByLimit++;
        } else if (await switchOn(website, at)) result.protected++;
        else result.failed++;
      }
      if (result.protected + result.heldByLimit + result.ended + result.failed > 0) logger.info({ ...result }, 'monitoring switch ran');
      return result;
    },
  };
}

export type Monitoring = ReturnType<typeof createMonitoring>;
