/**
 * Plesk Event Manager handlers -> panel events. Plesk runs the handler with the event's
 * values in the environment as NEW_<FIELD> / OLD_<FIELD>; deletions carry only OLD_*.
 *
 * Which account a domain belongs to: the customer login (NEW_LOGIN_NAME of client_create)
 * is the account the plugin knows. Plesk's documented parameters for domain, site and
 * hosting events do not certainly include it, so the adapter takes NEW_CLIENT_LOGIN when
 * the handler is given it and otherwise the subscription's system user (NEW_SYSTEM_USER),
 * the one owner name those events do carry. The two can differ: a handler that can pass the
 * customer login should, so domains land on the same account as client_create made.
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

function owner(env: Env, stage: Stage): { value: string | undefined; from: string } {
  const login = value(env, `${stage}_CLIENT_LOGIN`);
  if (login.value !== undefined) return login;
  const systemUser = value(env, `${stage}_SYSTEM_USER`);
  return systemUser.value !== undefined ? systemUser : { value: undefined, from: `${stage}_CLIENT_LOGIN (or ${stage}_SYSTEM_USER)` };
}

function domainDrafts(env: Env, type: 'domain.added' | 'domain.removed'): SourcedDraft[] {
  const stage: Stage = type === 'domain.added' ? 'NEW' : 'OLD';
  const account = owner(env, stage);
  const domain = value(env, `${stage}_DOMAIN_NAME`);
  const ip = stage === 'NEW' ? firstIp(env.NEW_IP_ADDRESS) : undefined;
  return [
    {
      draft: { type, account: account.value as string, domain: domain.value, ip },
      from: { account: account.from, domain: domain.from, ip: 'NEW_IP_ADDRESS' },
    },
  ];
}

function subdomainDrafts(env: Env, type: 'subdomain.added' | 'subdomain.removed'): SourcedDraft[] {
  const stage: Stage = type === 'subdomain.added' ? 'NEW' : 'OLD';
  const account = owner(env, stage);
  const domain = value(env, `${stage}_DOMAIN_NAME`);
  const subdomain = value(env, `${stage}_SUBDOMAIN_NAME`);
  return [
    {
      draft: { type, account: account.value as string, domain: domain.value, subdomain: relativeLabel(subdomain.value, domain.value) },
      from: { account: account.from, domain: domain.from, subdomain: subdomain.from },
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

const TRANSLATIONS: Record<Exclude<PleskEvent, 'client_update'>, (env: Env) => SourcedDraft[]> = {
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
  domain_create: (env) => domainDrafts(env, 'domain.added'),
  site_create: (env) => domainDrafts(env, 'domain.added'),
  phys_hosting_create: (env) => domainDrafts(env, 'domain.added'),
  domain_delete: (env) => domainDrafts(env, 'domain.removed'),
  site_delete: (env) => domainDrafts(env, 'domain.removed'),
  subdomain_create: (env) => subdomainDrafts(env, 'subdomain.added'),
  subdomain_delete: (env) => subdomainDrafts(env, 'subdomain.removed'),
};

const isPleskEvent = (event: string): event is PleskEvent => (PLESK_EVENTS as readonly string[]).includes(event);

export function translatePleskEvent(event: string, env: Record<string, string | undefined>, now?: Date): AdapterResult {
  if (!isPleskEvent(event)) {
    return failure(`unsupported Plesk event "${event}"; supported: ${PLESK_EVENTS.join(', ')}`, [
      { path: 'event', message: 'unsupported event' },
    ]);
  }
  if (event === 'client_update') return clientUpdate(env, now);
  return finishDrafts('plesk', `Plesk ${event}`, TRANSLATIONS[event](env), now);
}
