/**
 * A website's state in plain words, for the customer's and the admin's pages: what it is,
 * who paused it, what to do next, and which one-click actions a customer may take. Pure:
 * everything comes from the local record (core/types.ts) and, for an error, its reason; the
 * words come from the catalogs through `t` (websiteState.*), in the page's language.
 * The one mapping of states to words: setting up, could not protect, waiting for DNS,
 * monitoring, protected, and the pauses.
 */
import type { Translate } from './i18n.js';
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

/** The pauses whose words say what to do, by audience (the rest have no next step to offer). */
const PAUSE_HAS_TODO: Record<PausedBy, Record<Audience, boolean>> = {
  customer: { customer: true, admin: false },
  admin: { customer: true, admin: false },
  reseller: { customer: true, admin: false },
  suspension: { customer: true, admin: false },
  enforcement: { customer: true, admin: true },
  external: { customer: true, admin: false },
  domain_removed: { customer: false, admin: false },
  account_deleted: { customer: false, admin: false },
  // Worded by packageState below: the catalog's packages.* keys.
  package: { customer: false, admin: true },
};

const paused = (by: PausedBy | null, audience: Audience, t: Translate): WebsiteState => {
  const key = by ? `websiteState.paused.${by}.${audience}` : 'websiteState.paused.unknown';
  return {
    kind: 'paused',
    tone: by === 'customer' || by === 'external' ? 'neutral' : 'warn',
    label: t(`${key}.label`),
    summary: t(`${key}.summary`),
    todo: by && PAUSE_HAS_TODO[by][audience] ? t(`${key}.todo`) : null,
    pausedBy: by,
  };
};

const state = (kind: WebsiteStateKind, tone: StateTone, label: string, summary: string, todo: string | null = null): WebsiteState => ({
  kind,
  tone,
  label,
  summary,
  todo,
  pausedBy: null,
});

const settingUp = (t: Translate) =>
  state('being_set_up', 'info', t('websiteState.settingUp.label'), t('websiteState.settingUp.summary'), t('websiteState.settingUp.todo'));

/** Monitoring first (core/monitoring.ts): paused at the provider by nobody, until the schedule protects it. */
const monitoring = (audience: Audience, t: Translate): WebsiteState =>
  state(
    'monitoring',
    'info',
    t('websiteState.monitoring.label'),
    t(`websiteState.monitoring.${audience}.summary`),
    audience === 'customer' ? t('websiteState.monitoring.customer.todo') : null,
  );

/** What to do about a refusal, by its code: the customer fixes their DNS; a limit is the host's; anything else is tried again. */
function refusalTodo(website: StateInput, failure: ProvisioningFailure, audience: Audience, t: Translate): string {
  const which =
    failure.code === 'domain_unresolvable'
      ? 'unresolvable'
      : failure.code === 'LIMIT_REACHED' || failure.code === 'domain_limit_reached'
        ? 'limit'
        : 'other';
  return t(`websiteState.refused.todo.${which}.${audience}`, { domain: website.domain });
}

/** The provider refused the website (it never got it): its reason, and what to do. */
function refusedState(website: StateInput, failure: ProvisioningFailure, audience: Audience, t: Translate): WebsiteState {
  const summary = t(`websiteState.refused.${audience}`, { domain: website.domain, code: failure.code, reason: failure.reason });
  return state('could_not_protect', 'bad', t('websiteState.refused.label'), summary, refusalTodo(website, failure, audience, t));
}

/**
 * The account's hosting package does not include web protection (core/package-protection.ts):
 * never set up at the provider, or paused there until the grace period ends.
 */
const packageState = (audience: Audience, t: Translate): WebsiteState => ({
  kind: 'paused',
  tone: 'warn',
  label: t('packages.websiteState.label'),
  summary: t(`packages.websiteState.${audience}`),
  todo: audience === 'admin' ? t('packages.websiteState.todo') : null,
  pausedBy: 'package',
});

/** What the provider reports for a website the plugin keeps online. */
function onlineState(website: StateInput, errorReason: string | null, t: Translate): WebsiteState {
  const domain = { domain: website.domain };
  switch (website.providerStatus) {
    case 'online':
      return state('protected', 'ok', t('websiteState.protected.label'), t('websiteState.protected.summary'));
    case 'pending_dns':
      return state(
        'waiting_dns',
        'info',
        t('websiteState.waitingDns.label'),
        t('websiteState.waitingDns.summary', domain),
        t('websiteState.waitingDns.todo', domain),
      );
    case 'issuing_certificate':
      return state(
        'issuing_certificate',
        'info',
        t('websiteState.issuingCertificate.label'),
        t('websiteState.issuingCertificate.summary'),
        t('websiteState.issuingCertificate.todo'),
      );
    case 'paused':
      return paused('external', 'customer', t);
    case null:
    case 'setup':
    case 'unknown':
      return settingUp(t);
    case 'missing':
      return state('error', 'bad', t('websiteState.error.label'), t('websiteState.error.missing'), t('websiteState.error.missingTodo'));
    case 'error':
      return state(
        'error',
        'bad',
        t('websiteState.error.label'),
        errorReason ? t('websiteState.error.reason', { reason: errorReason }) : t('websiteState.error.noReason'),
        t('websiteState.error.todo'),
      );
    default:
      return state(
        'being_set_up',
        'info',
        t('websiteState.settingUp.label'),
        t('websiteState.settingUp.reported', { status: website.providerStatus }),
      );
  }
}

/**
 * The website's state in plain words for `audience`, in the language of `t`; `errorReason`
 * says why, when the provider reports an error.
 */
export function describeWebsite(
  website: StateInput,
  t: Translate,
  audience: Audience = 'customer',
  errorReason: string | null = null,
): WebsiteState {
  if (website.state === 'removed') return paused(website.pausedBy ?? 'domain_removed', audience, t);
  if (website.pausedBy === 'package') return packageState(audience, t);
  if (website.provisionedAt === null)
    return website.provisioningFailure ? refusedState(website, website.provisioningFailure, audience, t) : settingUp(t);
  if (website.desiredStatus === 'paused')
    return website.pausedBy === null ? monitoring(audience, t) : paused(website.pausedBy, audience, t);
  if (website.desiredStatus === 'setup') {
    return state(
      'not_protected',
      'neutral',
      t('websiteState.notProtected.label'),
      t('websiteState.notProtected.summary'),
      t('websiteState.notProtected.todo'),
    );
  }
  return onlineState(website, errorReason, t);
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
