/**
 * What the demo panel shows of its accounts and websites: each website's state in plain
 * words, with what happens next, and its hits this period against its limit, so a newcomer
 * can follow provisioning, the DNS wait, the callback, the statistics and enforcement.
 */
import type { Format } from '../../core/format.js';
import type { Translate } from '../../core/i18n.js';
import { accountUsageNow, createLimitResolver } from '../../core/limits.js';
import { describeWebsite, type WebsiteStateKind } from '../../core/website-state.js';
import type { EnforcementAction, Website } from '../../core/types.js';
import type { AccountsRepo } from '../../db/accounts.repo.js';
import type { StatisticsRepo } from '../../db/statistics.repo.js';

export interface WebsiteState {
  label: string;
  badge: 'ok' | 'warn' | 'bad' | 'info' | 'neutral';
  /** What happens next, or what to do. */
  next: string;
}

/** The states with a next step for a newcomer in the demo (demoPanel.nextStep.<kind>); the state's words are core/website-state.ts's. */
const WITH_NEXT_STEP: ReadonlySet<WebsiteStateKind> = new Set<WebsiteStateKind>([
  'waiting_dns',
  'issuing_certificate',
  'protected',
  'error',
  'not_protected',
  'being_set_up',
  'could_not_protect',
  'monitoring',
]);

/**
 * A protected website's next step once a sync has counted its hits: traffic was sent and read,
 * so what is left to see is enforcement.
 */
function nextOnceCounted(hits: number, limit: number | null, t: Translate): string {
  if (limit === null) return t('demoPanel.nextStep.countedNoLimit');
  return hits > limit ? t('demoPanel.nextStep.overLimit') : t('demoPanel.nextStep.underLimit');
}

export function websiteState(
  website: Website,
  t: Translate,
  usage: { hits: number; limit: number | null } = { hits: 0, limit: null },
): WebsiteState {
  const state = describeWebsite(website, t, 'admin');
  const next =
    state.pausedBy === 'enforcement'
      ? t('demoPanel.nextStep.raiseLimit')
      : state.kind === 'protected' && usage.hits > 0
        ? nextOnceCounted(usage.hits, usage.limit, t)
        : WITH_NEXT_STEP.has(state.kind)
          ? t(`demoPanel.nextStep.${state.kind}`)
          : '';
  return { label: state.label, badge: state.tone, next };
}

export interface DemoWebsite {
  domain: string;
  state: WebsiteState;
  providerStatus: string | null;
  hits: number;
  limit: number | null;
  /** The share of the limit used, 0..1, for the bar; null without a limit. */
  used: number | null;
}

export interface DemoAccount {
  account: string;
  plan: string;
  state: string;
  websites: DemoWebsite[];
}

/** The newest accounts (at most `limit`) with their websites, hits this period and limits. */
export function demoAccounts(
  deps: { accounts: AccountsRepo; stats: StatisticsRepo },
  now: number,
  t: Translate,
  limit = 20,
): DemoAccount[] {
  const resolver = createLimitResolver(deps.stats, deps.accounts);
  return deps.accounts.recentAccounts(limit).map((account) => ({
    account: account.account,
    plan: account.plan ?? t('demoPanel.defaultPlan'),
    state: account.state,
    websites: accountUsageNow(deps, account.account, now, resolver).websites.map(({ website, hits, limit: hitLimit }) => ({
      domain: website.domain,
      state: websiteState(website, t, { hits, limit: hitLimit }),
      providerStatus: website.providerStatus,
      hits,
      limit: hitLimit,
      used: hitLimit === null ? null : hitLimit === 0 ? 1 : Math.min(1, hits / hitLimit),
    })),
  }));
}

/** An enforcement action in one line, its action and reason in the runs page's words. */
export function describeAction(action: EnforcementAction, format: Pick<Format, 'number'>, t: Translate): string {
  const values = {
    action: t(`runs.actions.${action.action}`, { defaultValue: action.action.replace('_', ' ') }),
    subject: action.domain ?? action.account,
    reason: t(`runs.reasons.${action.reason}`, { defaultValue: action.reason.replaceAll('_', ' ') }),
  };
  if (action.usage === null || action.limitValue === null) return t('demoPanel.action', values);
  return t('demoPanel.actionUsage', { ...values, usage: format.number(action.usage), limit: format.number(action.limitValue) });
}
