/**
 * Plesk Event Manager handlers -> panel events. Plesk runs the handler with the event's
 * values in the environment as NEW_<FIELD> / OLD_<FIELD>; deletions carry only OLD_*.
 *
 * Which account a domain belongs to: the customer login (NEW_LOGIN_NAME of client_create)
 * is the account the plugin knows. Plesk documents no owner variable for the domain, site,
 * subdomain and hosting events (client_create gives NEW_LOGIN_NAME, NEW_CONTACT_NAME,
 * NEW_EMAIL; domain_create, for a subscription's first domain, and site_create, for further
 * domains, give NEW_DOMAIN_NAME; no NEW_CLIENT_LOGIN exists), and the subscription's system
 * user is not the customer login. So the hook asks Plesk for the owner
 * (`plesk bin domain --info`, see panel/plesk-owner.ts) and hands it in: `pleskOwnerQuestion`
 * says which domain to ask about, `translatePleskEvent` takes the answer. No domain event
 * names an IP address (NEW_IP_ADDRESS belongs to the IP address events), so the website's
 * origin is the server's (WPP_SERVER_IP) or the one it already has.
 *
 * Suspensions: hosts and billing systems suspend a subscription, which Plesk reports as the
 * status of its first domain (domain_status_update); the customer's own status comes as
 * client_status_update (and client_update, which the plugin also reads for a status change).
 * Plesk's status is a sum of bits (its object status): 0 active; 1 suspended, 2 by the parent
 * object, 16 by the administrator, 32 by a reseller, 64 by the customer, 256 expired; 4 (held
 * while a backup or restore runs) and 8 (the web service stopped for a moment) are Plesk's own
 * short holds, not a suspension, and change nothing. Words such as "active" / "suspended" are
 * accepted too.
 */
import { failure, finishDrafts, nothingToDo, relativeLabel, text, type AdapterResult, type SourcedDraft } from './result.js';

type Env = Record<string, string | undefined>;
type Stage = 'NEW' | 'OLD';

export const PLESK_EVENTS = [
  'client_create',
  'client_update',
  'client_delete',
  'client_status_update',
  'domain_create',
  'domain_delete',
  'site_create',
  'site_delete',
  'subdomain_create',
  'subdomain_delete',
  'phys_hosting_create',
  'domain_status_update',
] as const satisfies readonly string[];

export type PleskEvent = (typeof PLESK_EVENTS)[number];

function value(env: Env, name: string): { value: string | undefined; from: string } {
  return { value: text(env[name]), from: name };
}

/** Where a customer's reseller came from, for messages: Plesk's database, never an event variable (see pleskResellerQuestion). */
const RESELLER_SOURCE = "the customer's owner from plesk db";

/** Where the owner came from, for messages: Plesk's answer, never an event variable. */
const OWNER_SOURCE = 'the owner from plesk bin domain --info';

function domainDrafts(env: Env, type: 'domain.added' | 'domain.removed', owner: string | undefined): SourcedDraft[] {
  const stage: Stage = type === 'domain.added' ? 'NEW' : 'OLD';
  const domain = value(env, `${stage}_DOMAIN_NAME`);
  return [{ draft: { type, account: owner as string, domain: domain.value }, from: { account: OWNER_SOURCE, domain: domain.from } }];
}

function subdomainDrafts(env: Env, type: 'subdomain.added' | 'subdomain.removed', owner: string | undefined): SourcedDraft[] {
  const stage: Stage = type === 'subdomain.added' ? 'NEW' : 'OLD';
  const domain = value(env, `${stage}_DOMAIN_NAME`);
  const subdomain = value(env, `${stage}_SUBDOMAIN_NAME`);
  return [
    {
      draft: { type, account: owner as string, domain: domain.value, subdomain: relativeLabel(subdomain.value, domain.value) },
      from: { account: OWNER_SOURCE, domain: domain.from, subdomain: subdomain.from },
    },
  ];
}

type Status = 'active' | 'suspended';

/** The status bits that suspend (see the top of this file); 4 and 8 are Plesk's short holds. */
const SUSPENDING_BITS = 1 | 2 | 16 | 32 | 64 | 256;

/** 'held': only Plesk's short holds (a backup, a web service restart), which change nothing. */
function readStatus(raw: string | undefined): Status | 'held' | 'unknown' | undefined {
  if (raw === undefined) return undefined;
  if (/^\d{1,9}$/.test(raw)) {
    const bits = Number(raw);
    if (bits === 0) return 'active';
    return (bits & SUSPENDING_BITS) !== 0 ? 'suspended' : 'held';
  }
  const word = raw.toLowerCase();
  if (['active', 'enabled', 'ok'].includes(word)) return 'active';
  if (['suspended', 'disabled', 'blocked', 'expired'].includes(word)) return 'suspended';
  return 'unknown';
}

/** A status change from NEW_STATUS / OLD_STATUS: the new status, or the result that ends the translation. */
function statusChange(label: string, env: Env): Status | AdapterResult {
  const next = readStatus(text(env.NEW_STATUS));
  const previous = readStatus(text(env.OLD_STATUS));
  if (next === 'unknown' || previous === 'unknown') {
    const name = next === 'unknown' ? 'NEW_STATUS' : 'OLD_STATUS';
    return failure(
      `${label}: ${name}="${env[name] ?? ''}" is not a Plesk status (0 active; a sum of 1, 2, 16, 32, 64, 256 suspended; or active/suspended)`,
      [{ path: name, message: 'not a recognised status' }],
    );
  }
  if (next === undefined) return nothingToDo(`${label}: ignored: no NEW_STATUS, so no suspension change`);
  if (next === 'held')
    return nothingToDo(
      `${label}: ignored: status ${text(env.NEW_STATUS)} is Plesk's short hold (backup, restore or web service restart), not a suspension`,
    );
  // From a short hold back to active is no reactivation: nothing was suspended.
  if (next === previous || (previous === 'held' && next === 'active'))
    return nothingToDo(`${label}: ignored: the status did not change (${next})`);
  return next;
}

function clientStatus(event: 'client_update' | 'client_status_update', env: Env, now: Date | undefined): AdapterResult {
  const label = `Plesk ${event}`;
  const next = statusChange(label, env);
  if (typeof next !== 'string') return next;
  const account = text(env.NEW_LOGIN_NAME) !== undefined ? value(env, 'NEW_LOGIN_NAME') : value(env, 'OLD_LOGIN_NAME');
  const type = next === 'suspended' ? 'account.suspended' : 'account.unsuspended';
  return finishDrafts('plesk', label, [{ draft: { type, account: account.value as string }, from: { account: account.from } }], now);
}

/** A website the plugin protects, with the account it has it under. */
export interface PleskWebsite {
  domain: string;
  account: string;
}

/**
 * domain_status_update: the subscription of that first domain suspended or reactivated, and
 * with it each of `websites`, the subscription's websites the plugin protects (found by the hook).
 */
function subscriptionStatus(env: Env, now: Date | undefined, websites: readonly PleskWebsite[]): AdapterResult {
  const label = 'Plesk domain_status_update';
  const next = statusChange(label, env);
  if (typeof next !== 'string') return next;
  const domain = text(env.NEW_DOMAIN_NAME) ?? text(env.OLD_DOMAIN_NAME);
  if (websites.length === 0)
    return nothingToDo(`${label}: ignored: wpp protects no website of the subscription of ${domain ?? 'an unnamed domain'}`);
  const type = next === 'suspended' ? 'domain.suspended' : 'domain.unsuspended';
  return finishDrafts(
    'plesk',
    label,
    websites.map((website) => ({
      draft: { type, account: website.account, domain: website.domain },
      from: { account: 'the account wpp has the website under', domain: 'the subscription of NEW_DOMAIN_NAME' },
    })),
    now,
  );
}

const TRANSLATIONS: Record<
  Exclude<PleskEvent, 'client_update' | 'client_status_update' | 'domain_status_update'>,
  (env: Env, owner: string | undefined, reseller?: string | null) => SourcedDraft[]
> = {
  client_create: (env, _owner, reseller) => {
    const account = value(env, 'NEW_LOGIN_NAME');
    const email = value(env, 'NEW_EMAIL');
    return [
      {
        draft: { type: 'account.created', account: account.value as string, email: email.value, reseller },
        from: { account: account.from, email: email.from, reseller: RESELLER_SOURCE },
      },
    ];
  },
  client_delete: (env) => {
    const account = value(env, 'OLD_LOGIN_NAME');
    return [{ draft: { type: 'account.deleted', account: account.value as string }, from: { account: account.from } }];
  },
  domain_create: (env, owner) => domainDrafts(env, 'domain.added', owner),
  site_create: (env, owner) => domainDrafts(env, 'domain.added', owner),
  phys_hosting_create: (env, owner) => domainDrafts(env, 'domain.added', owner),
  domain_delete: (env, owner) => domainDrafts(env, 'domain.removed', owner),
  site_delete: (env, owner) => domainDrafts(env, 'domain.removed', owner),
  subdomain_create: (env, owner) => subdomainDrafts(env, 'subdomain.added', owner),
  subdomain_delete: (env, owner) => subdomainDrafts(env, 'subdomain.removed', owner),
};

const isPleskEvent = (event: string): event is PleskEvent => (PLESK_EVENTS as readonly string[]).includes(event);

const REMOVALS: ReadonlySet<PleskEvent> = new Set(['domain_delete', 'site_delete', 'subdomain_delete']);
const ADDITIONS: ReadonlySet<PleskEvent> = new Set(['domain_create', 'site_create', 'phys_hosting_create', 'subdomain_create']);

/**
 * The domain whose owner the hook must find before translating, or undefined when the event
 * needs no owner (client events) or names no domain (the translation then says so). For a
 * removal the domain is already gone from Plesk, so the owner is the account the plugin has
 * the website under; for a subdomain it is the owner of the parent domain.
 */
export function pleskOwnerQuestion(event: string, env: Env): { domain: string; removal: boolean } | undefined {
  if (!isPleskEvent(event)) return undefined;
  const removal = REMOVALS.has(event);
  if (!removal && !ADDITIONS.has(event)) return undefined;
  const domain = text(env[`${removal ? 'OLD' : 'NEW'}_DOMAIN_NAME`]);
  return domain === undefined ? undefined : { domain, removal };
}

/**
 * The customer whose reseller the hook must find (client_create), or undefined. Plesk documents
 * no owner variable for client_create (NEW_LOGIN_NAME, NEW_CONTACT_NAME, NEW_EMAIL...; no
 * NEW_OWNER_LOGIN in "Event Parameters Passed by Event Handlers", nor in the public handlers
 * searched), so the hook reads the customer's owner from Plesk's database (panel/plesk-owner.ts).
 */
export function pleskResellerQuestion(event: string, env: Env): string | undefined {
  return event === 'client_create' ? text(env.NEW_LOGIN_NAME) : undefined;
}

/** The first domain of the subscription whose status changed (domain_status_update), for the hook to find its websites. */
export function pleskSubscriptionQuestion(event: string, env: Env): string | undefined {
  return event === 'domain_status_update' ? (text(env.NEW_DOMAIN_NAME) ?? text(env.OLD_DOMAIN_NAME)) : undefined;
}

/**
 * `owner`: the login of the domain's owner, found by the hook (see pleskOwnerQuestion); client
 * events need none. `websites`: for domain_status_update, the websites of the subscription the
 * plugin protects (see pleskSubscriptionQuestion). `reseller`: for client_create, the reseller
 * who owns the customer (null: the administrator's own; absent: not found, see pleskResellerQuestion).
 */
export function translatePleskEvent(
  event: string,
  env: Env,
  now?: Date,
  owner?: string,
  websites: readonly PleskWebsite[] = [],
  reseller?: string | null,
): AdapterResult {
  if (!isPleskEvent(event)) {
    return failure(`unsupported Plesk event "${event}"; supported: ${PLESK_EVENTS.join(', ')}`, [
      { path: 'event', message: 'unsupported event' },
    ]);
  }
  if (event === 'client_update' || event === 'client_status_update') return clientStatus(event, env, now);
  if (event === 'domain_status_update') return subscriptionStatus(env, now, websites);
  return finishDrafts('plesk', `Plesk ${event}`, TRANSLATIONS[event](env, owner, reseller), now);
}
