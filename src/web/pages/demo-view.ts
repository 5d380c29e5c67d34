/**
 * What the demo panel shows of its accounts and websites: each website's state in plain
 * words, with what happens next, and its hits this period against its limit, so a newcomer
 * can follow provisioning, the DNS wait, the callback, the statistics and enforcement.
 */
import { createLimitResolver } from '../../core/limits.js';
import type { EnforcementAction, Website } from '../../core/types.js';
import type { AccountsRepo } from '../../db/accounts.repo.js';
import type { StatisticsRepo } from '../../db/statistics.repo.js';

export interface WebsiteState {
  label: string;
  badge: 'ok' | 'warn' | 'bad' | 'info' | 'neutral';
  /** What happens next, or what to do. */
  next: string;
}

const PAUSED_BY: Record<string, string> = {
  enforcement: 'paused by the hit limit',
  admin: 'paused by the host',
  customer: 'paused by the customer',
  suspension: 'paused: the account is suspended',
  external: 'paused at the provider',
  domain_removed: 'removed from the panel',
  account_deleted: 'the account was deleted',
};

const PROVIDER_STATES: Record<string, WebsiteState> = {
  pending_dns: { label: 'waiting for DNS', badge: 'warn', next: 'The domain must point at the provider: mark its DNS verified.' },
  issuing_certificate: { label: 'issuing a certificate', badge: 'info', next: 'The provider issues a certificate; a callback follows.' },
  online: { label: 'protected', badge: 'ok', next: 'Send traffic, then run a sync to read its statistics.' },
  error: { label: 'error at the provider', badge: 'bad', next: 'See the website in the Websites list.' },
};

export function websiteState(website: Website): WebsiteState {
  if (website.state === 'removed') return { label: 'removed', badge: 'neutral', next: '' };
  if (website.desiredStatus === 'setup')
    return { label: 'not protected yet', badge: 'neutral', next: "Auto-protect is off: protect it from the customer's view." };
  if (website.desiredStatus === 'paused') {
    const label = PAUSED_BY[website.pausedBy ?? ''] ?? 'paused';
    const next = website.pausedBy === 'enforcement' ? 'Raise its hit limit in Settings: the next sync resumes it.' : '';
    return { label, badge: website.pausedBy === 'enforcement' ? 'bad' : 'warn', next };
  }
  if (website.providerStatus === null) return { label: 'being provisioned', badge: 'info', next: 'A job creates it at the provider.' };
  return (
    PROVIDER_STATES[website.providerStatus] ?? {
      label: website.providerStatus.replaceAll('_', ' '),
      badge: 'info',
      next: 'Waiting for the provider.',
    }
  );
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
export function demoAccounts(deps: { accounts: AccountsRepo; stats: StatisticsRepo }, now: number, limit = 20): DemoAccount[] {
  const resolver = createLimitResolver(deps.stats, deps.accounts);
  return deps.accounts.recentAccounts(limit).map((account) => {
    const period = resolver.periodOf(account.account, now);
    return {
      account: account.account,
      plan: account.plan ?? 'default',
      state: account.state,
      websites: deps.accounts.websitesOf(account.account).map((website) => {
        const hits = deps.stats.websiteUsage(website.domain, period.start);
        const hitLimit = resolver.forWebsite(website.domain, account.account).websiteHits;
        return {
          domain: website.domain,
          state: websiteState(website),
          providerStatus: website.providerStatus,
          hits,
          limit: hitLimit,
          used: hitLimit === null ? null : hitLimit === 0 ? 1 : Math.min(1, hits / hitLimit),
        };
      }),
    };
  });
}

/** An enforcement action in one line. */
export const describeAction = (action: EnforcementAction) =>
  `${action.action.replace('_', ' ')} ${action.domain ?? action.account}: ${action.reason.replaceAll('_', ' ')}` +
  (action.usage !== null && action.limitValue !== null
    ? ` (${action.usage.toLocaleString('en')} of ${action.limitValue.toLocaleString('en')} hits)`
    : '');
