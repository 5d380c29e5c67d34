/**
 * A website's state in plain words, for the customer's and the admin's pages: what it is,
 * who paused it, what to do next, and which one-click actions a customer may take. Pure:
 * everything comes from the local record (core/types.ts) and, for an error, its reason.
 * The one mapping of states to words: setting up, could not protect, waiting for DNS,
 * monitoring, protected, and the pauses.
 */
import type { PausedBy, ProvisioningFailure, Website } from './types.js';

export type WebsiteStateKind =
  | 'protected'
  | 'paused'
  | 'monitoring'
  | 'waiting_dns'
  | 'issuing_certificate'
  | 'error'
  | 'not_protected'
  | 'being_set_up'
  | 'could_not_protect'
  | 'removed';

/** The badge classes of views/static/app.css. */
export type StateTone = 'ok' | 'warn' | 'bad' | 'info' | 'neutral';

/** `retry`: provision again a website the provider refused (Try again). */
export type CustomerAction = 'protect' | 'pause' | 'resume' | 'retry';

export type Audience = 'customer' | 'admin';

export interface WebsiteState {
  kind: WebsiteStateKind;
  tone: StateTone;
  /** A badge's few words. */
  label: string;
  /** One sentence saying what is going on. */
  summary: string;
  /** What to do about it, when anything can be done. */
  todo: string | null;
  pausedBy: PausedBy | null;
}

export type StateInput = Pick<Website, 'domain' | 'state' | 'desiredStatus' | 'pausedBy' | 'providerStatus'> &
  Partial<Pick<Website, 'provisionedAt' | 'provisioningFailure'>>;

const PAUSE_WORDS: Record<PausedBy, Record<Audience, { label: string; summary: string; todo: string | null }>> = {
  customer: {
    customer: {
      label: 'Paused by you',
      summary: 'You paused protection: visitors reach your website directly.',
      todo: 'Resume to protect it again.',
    },
    admin: { label: 'Paused by the customer', summary: 'The customer paused protection.', todo: null },
  },
  admin: {
    customer: {
      label: 'Paused by your host',
      summary: 'Your host paused protection of this domain.',
      todo: 'Ask your host if you want it protected again.',
    },
    admin: { label: 'Paused by an admin', summary: 'An admin paused protection.', todo: null },
  },
  suspension: {
    customer: {
      label: 'Paused by your host',
      summary: 'Your host paused protection while your account is suspended.',
      todo: 'Protection resumes when your host reactivates your account.',
    },
    admin: { label: 'Paused: account suspended', summary: 'Paused while the account is suspended.', todo: null },
  },
  enforcement: {
    customer: {
      label: 'Paused: hit limit reached',
      summary: 'Protection is paused because this period’s hit limit is reached.',
      todo: 'It resumes by itself when the next period starts, or sooner if your host raises the limit.',
    },
    admin: {
      label: 'Paused by the hit limit',
      summary: 'Enforcement paused it: the hit limit of the period is reached.',
      todo: 'Resume it as an admin to keep it online for the rest of the period.',
    },
  },
  external: {
    customer: {
      label: 'Paused in the dashboard',
      summary: 'Protection was paused in the protection service’s own dashboard.',
      todo: 'Resume to protect it again.',
    },
    admin: { label: 'Paused outside the plugin', summary: 'Paused in the provider’s dashboard, not by the plugin.', todo: null },
  },
  domain_removed: {
    customer: { label: 'Removed', summary: 'This domain was removed from your hosting account.', todo: null },
    admin: { label: 'Removed', summary: 'The domain was removed in the panel.', todo: null },
  },
  account_deleted: {
    customer: { label: 'Removed', summary: 'Your hosting account was deleted.', todo: null },
    admin: { label: 'Account deleted', summary: 'The account was deleted in the panel.', todo: null },
  },
};

const paused = (by: PausedBy | null, audience: Audience): WebsiteState => {
  const words = by ? PAUSE_WORDS[by][audience] : { label: 'Paused', summary: 'Protection is paused.', todo: null };
  return { kind: 'paused', tone: by === 'customer' || by === 'external' ? 'neutral' : 'warn', ...words, pausedBy: by };
};

const state = (kind: WebsiteStateKind, tone: StateTone, label: string, summary: string, todo: string | null = null): WebsiteState => ({
  kind,
  tone,
  label,
  summary,
  todo,
  pausedBy: null,
});

const SETTING_UP = state(
  'being_set_up',
  'info',
  'Setting up',
  'The protection service is setting this domain up.',
  'Nothing to do yet: check back in a minute.',
);

/** Monitoring first (core/monitoring.ts): paused at the provider by nobody, until the schedule protects it. */
const monitoring = (audience: Audience): WebsiteState =>
  audience === 'customer'
    ? state(
        'monitoring',
        'info',
        'Monitoring',
        'We watch your traffic; we block nothing yet.',
        'Protection starts by itself, or choose Protect now.',
      )
    : state('monitoring', 'info', 'Monitoring', 'Monitoring first: watched, nothing blocked, until the schedule protects it.');

/** What to do about a refusal, by its code: the customer fixes their DNS; a limit is the host's; anything else is tried again. */
function refusalTodo(website: StateInput, failure: ProvisioningFailure, audience: Audience): string {
  if (failure.code === 'domain_unresolvable') {
    return audience === 'customer'
      ? `Check the DNS of ${website.domain} where your domain is registered: the domain must exist and resolve. Then click Try again.`
      : `The domain's DNS must exist and resolve: once the customer has fixed it, click Retry (the customer can also click Try again).`;
  }
  if (failure.code === 'LIMIT_REACHED' || failure.code === 'domain_limit_reached') {
    return audience === 'customer'
      ? 'Your plan protects no more domains: ask your host to raise the limit, then click Try again.'
      : 'Raise the account’s domain limit (or remove one of its domains), then click Retry.';
  }
  return audience === 'customer'
    ? 'Click Try again; if it is refused again, ask your host for help.'
    : 'Once the cause is fixed, click Retry.';
}

/** The provider refused the website (it never got it): its reason, and what to do. */
function refusedState(website: StateInput, failure: ProvisioningFailure, audience: Audience): WebsiteState {
  const summary =
    audience === 'customer'
      ? `The protection service could not protect ${website.domain}: ${failure.reason}`
      : `The provider refused it (${failure.code}): ${failure.reason}`;
  return state('could_not_protect', 'bad', 'Could not protect', summary, refusalTodo(website, failure, audience));
}

/** What the provider reports for a website the plugin keeps online. */
function onlineState(website: StateInput, errorReason: string | null): WebsiteState {
  switch (website.providerStatus) {
    case 'online':
      return state('protected', 'ok', 'Protected', 'Visitors pass through the protection service.');
    case 'pending_dns':
      return state(
        'waiting_dns',
        'info',
        'Waiting for DNS',
        `The protection service is waiting for the DNS of ${website.domain} to point at it.`,
        `Change the DNS records of ${website.domain} (and its subdomains) where your domain is registered, so they point at the protection service. Protection starts by itself once the change is seen; this can take a few hours.`,
      );
    case 'issuing_certificate':
      return state(
        'issuing_certificate',
        'info',
        'Issuing certificate',
        'DNS is set; a certificate for HTTPS is being issued.',
        'Nothing to do: this takes a few minutes.',
      );
    case 'paused':
      return paused('external', 'customer');
    case null:
    case 'setup':
    case 'unknown':
      return SETTING_UP;
    case 'missing':
      return state('error', 'bad', 'Error', 'The protection service no longer knows this domain.', 'Ask your host to set it up again.');
    case 'error':
      return state(
        'error',
        'bad',
        'Error',
        errorReason
          ? `The protection service reports an error: ${errorReason}`
          : 'The protection service reports an error with this domain.',
        'Ask your host for help if it does not clear within an hour.',
      );
    default:
      return state('being_set_up', 'info', 'Setting up', `The protection service reports “${website.providerStatus}”.`);
  }
}

/** The website's state in plain words for `audience`; `errorReason` says why, when the provider reports an error. */
export function describeWebsite(website: StateInput, audience: Audience = 'customer', errorReason: string | null = null): WebsiteState {
  if (website.state === 'removed') return paused(website.pausedBy ?? 'domain_removed', audience);
  if (website.provisionedAt === null)
    return website.provisioningFailure ? refusedState(website, website.provisioningFailure, audience) : SETTING_UP;
  if (website.desiredStatus === 'paused') return website.pausedBy === null ? monitoring(audience) : paused(website.pausedBy, audience);
  if (website.desiredStatus === 'setup') {
    return state(
      'not_protected',
      'neutral',
      'Not protected',
      'This domain is not behind the protection service yet.',
      'Click Protect to put it behind the protection service.',
    );
  }
  return onlineState(website, errorReason);
}

/** Pauses a customer may end themselves: their own, and one made in the provider's dashboard. */
const CUSTOMER_RESUMABLE: ReadonlySet<PausedBy | null> = new Set<PausedBy | null>(['customer', 'external']);

/** The one-click actions a customer may take on the website now. */
export function customerActions(website: StateInput): CustomerAction[] {
  if (website.state !== 'active') return [];
  if (website.provisionedAt === null) return website.provisioningFailure ? ['retry'] : [];
  switch (website.desiredStatus) {
    case 'setup':
      return ['protect'];
    case 'online':
      return website.providerStatus === 'paused' ? ['resume'] : ['pause'];
    case 'paused':
      return CUSTOMER_RESUMABLE.has(website.pausedBy) ? ['resume'] : [];
  }
}
