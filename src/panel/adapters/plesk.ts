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
 * says which domain to ask about, `translatePleskEvent` takes the answer.
 *
 * client_update is a suspension or reactivation only when the status changes. Plesk's
 * status is a number: 0 active; 16 disabled by the administrator, 32 by a reseller, 64 by
 * the customer, 256 expired (any non-zero value counts as suspended). Words such as
 * "active" / "suspended" are accepted too.
 */
import { failure, finishDrafts, firstIp, nothingToDo, relativeLabel, text, type AdapterResult, type SourcedDraft } from './result.js';

type Env = Record<string, string | undefined>;
type Stage = 'NEW' | 'OLD';

export const PLESK_EVENTS = [
  'client_create',
  'client_update',
  'client_delete',
  'domain_create',
  'domain_delete',
  'site_create',
  'site_delete',
  'subdomain_create',
  'subdomain_delete',
  'phys_hosting_create',
] as const satisfies readonly string[];

type PleskEvent = (typeof PLESK_EVENTS)[number];

function value(env: Env, name: string): { value: string | undefined; from: string } {
  return { value: text(env[name]), from: name };
}

/** Where the owner came from, for messages: Plesk's answer, never an event variable. */
const OWNER_SOURCE = 'the owner from plesk bin domain --info';

function domainDrafts(env: Env, type: 'domain.added' | 'domain.removed', owner: string | undefined): SourcedDraft[] {
  const stage: Stage = type === 'domain.added' ? 'NEW' : 'OLD';
  const domain = value(env, `${stage}_DOMAIN_NAME`);
  const ip = stage === 'NEW' ? firstIp(env.NEW_IP_ADDRESS) : undefined;
  return [
    {
      draft: { type, account: owner as string, domain: domain.value, ip },
      from: { account: OWNER_SOURCE, domain: domain.from, ip: 'NEW_IP_ADDRESS' },
    },
  ];
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

function readStatus(raw: string | undefined): Status | 'unknown' | undefined {
  if (raw === undefined) return undefined;
  if (/^\d+$/.test(raw)) return Number(raw) === 0 ? 'active' : 'suspended';
  const word = raw.toLowerCase();
  if (['active', 'enabled', 'ok'].includes(word)) return 'active';
  if (['suspended', 'disabled', 'blocked', 'expired'].includes(word)) return 'suspended';
  return 'unknown';
}

function clientUpdate(env: Env, now: Date | undefined): AdapterResult {
  const label = 'Plesk client_update';
  const next = readStatus(text(env.NEW_STATUS));
  const previous = readStatus(text(env.OLD_STATUS));
  if (next === 'unknown' || previous === 'unknown') {
    const name = next === 'unknown' ? 'NEW_STATUS' : 'OLD_STATUS';
    return failure(`${label}: ${name}="${env[name] ?? ''}" is not a Plesk status (0 active, 16/32/64/256 suspended, or active/suspended)`, [
      { path: name, message: 'not a recognised status' },
    ]);
  }
  if (next === undefined) return nothingToDo(`${label}: ignored: no NEW_STATUS, so no suspension change`);
  if (next === previous) return nothingToDo(`${label}: ignored: the status did not change (${next})`);
  const account = text(env.NEW_LOGIN_NAME) !== undefined ? value(env, 'NEW_LOGIN_NAME') : value(env, 'OLD_LOGIN_NAME');
  const type = next === 'suspended' ? 'account.suspended' : 'account.unsuspended';
  return finishDrafts('plesk', label, [{ draft: { type, account: account.value as string }, from: { account: account.from } }], now);
}

const TRANSLATIONS: Record<Exclude<PleskEvent, 'client_update'>, (env: Env, owner: string | undefined) => SourcedDraft[]> = {
  client_create: (env) => {
    const account = value(env, 'NEW_LOGIN_NAME');
    const email = value(env, 'NEW_EMAIL');
    return [
      {
        draft: { type: 'account.created', account: account.value as string, email: email.value },
        from: { account: account.from, email: email.from },
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

/** `owner`: the login of the domain's owner, found by the hook (see pleskOwnerQuestion); client events need none. */
export function translatePleskEvent(event: string, env: Env, now?: Date, owner?: string): AdapterResult {
  if (!isPleskEvent(event)) {
    return failure(`unsupported Plesk event "${event}"; supported: ${PLESK_EVENTS.join(', ')}`, [
      { path: 'event', message: 'unsupported event' },
    ]);
  }
  if (event === 'client_update') return clientUpdate(env, now);
  return finishDrafts('plesk', `Plesk ${event}`, TRANSLATIONS[event](env, owner), now);
}
