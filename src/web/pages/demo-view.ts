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

/** What a newcomer does next in the demo, by state; the state's words are core/website-state.ts's. */
const NEXT_STEP: Partial<Record<WebsiteStateKind, string>> = {
  waiting_dns: 'The domain must point at the provider: mark its DNS verified.',
  issuing_certificate: 'The provider issues a certificate; a callback follows.',
  protected: 'Send traffic, then run a sync to read its statistics.',
  error: 'See the website in the Websites list.',
  not_protected: "Auto-protect is off: protect it from the customer's view.",
  being_set_up: 'A job creates it at the provider.',
  could_not_protect: 'The provider refused it: its page in Websites says why; once the cause is fixed, Retry there.',
  monitoring: "Watched, nothing blocked: protect it from the customer's view.",
};

/**
 * A protected website's next step once a sync has counted its hits: traffic was sent and read,
 * so what is left to see is enforcement.
 */
function nextOnceCounted(hits: number, limit: number | null): string {
  if (limit === null) return 'Counted. Set a hit limit below its hits in Settings, then run a sync: enforcement pauses it.';
  return hits > limit ? 'Over its limit: the next sync pauses it.' : 'Counted against its limit: a sync pauses it once it is over.';
}

export function websiteState(
  website: Website,
  t: Translate,
  usage: { hits: number; limit: number | null } = { hits: 0, limit: null },
): WebsiteState {
  const state = describeWebsite(website, t, 'admin');
  const next =
    state.pausedBy === 'enforcement'
      ? 'Raise its hit limit in Settings: the next sync resumes it.'
      : state.kind === 'protected' && usage.hits > 0
        ? nextOnceCounted(usage.hits, usage.limit)
        : (NEXT_STEP[state.kind] ?? '');
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
    plan: account.plan ?? 'default',
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

/** An enforcement action in one line. */
export const describeAction = (action: EnforcementAction, format: Pick<Format, 'number'>) =>
  `${action.action.replace('_', ' ')} ${action.domain ?? action.account}: ${action.reason.replaceAll('_', ' ')}` +
  (action.usage !== null && action.limitValue !== null
    ? ` (${format.number(action.usage)} of ${format.number(action.limitValue)} hits)`
    : '');
