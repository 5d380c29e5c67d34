/**
 * The owner of a Plesk domain, for the event handlers whose events do not name it.
 *
 * `plesk bin domain --info <domain>` prints a "General" block with the line
 *   Owner's contact name:                   Jane Doe (jdoe)
 * (the contact name, then the owner's login in parentheses; "Administrator (admin)" for the
 * administrator's own subscriptions), as public tools that read it show. The login is the
 * account the plugin knows from client_create's NEW_LOGIN_NAME.
 */
import type { OwnerLookup } from '../core/job-kinds.js';
import { normalizeDomain } from '../provider/spec.js';
import { AppError } from '../errors.js';
import { nothingToDo, type AdapterResult } from './adapters/result.js';
import {
  pleskOwnerQuestion,
  pleskResellerQuestion,
  pleskSubscriptionQuestion,
  translatePleskEvent,
  type PleskWebsite,
} from './adapters/plesk.js';
import { accountNameSchema } from './events.js';
import { withPleskPackage } from './plesk-package.js';
import type { PanelEvent } from './events.js';
import type { ToolRunner } from '../install/tools.js';

/** The Plesk command-line entry point, by the path Plesk installs it at. */
export const PLESK_TOOL = '/usr/sbin/plesk';

/** The owner's login from `domain --info` output, or undefined when the output has no owner line. */
export function ownerFromDomainInfo(info: string): string | undefined {
  const line = info.split(/\r?\n/).find((l) => /^\s*Owner's contact name\s*:/i.test(l));
  // The last parenthesised group: a contact name may hold parentheses itself ("Doe (Ltd) (jdoe)").
  const login = line?.match(/\(([^()\s]+)\)\s*$/)?.[1];
  return login === undefined || login === '' ? undefined : login;
}

/** Asks Plesk who owns `domain`; throws with a message an administrator can act on. */
export async function askPleskForOwner(tools: ToolRunner, domain: string): Promise<string> {
  const result = await tools.check(PLESK_TOOL, ['bin', 'domain', '--info', domain], { timeoutMs: 30_000 });
  const owner = ownerFromDomainInfo(result.stdout);
  if (owner === undefined)
    throw new Error(`${PLESK_TOOL} bin domain --info ${domain} printed no "Owner's contact name: Name (login)" line`);
  return owner;
}

/**
 * The other sites of the subscription whose first domain is `domain`, from Plesk's database
 * (`plesk db`; a site's `webspace_id` is its subscription's first domain, as public handlers
 * read it). The name is checked as a domain name first: it goes into the query.
 */
export async function askPleskForSubscriptionSites(tools: ToolRunner, domain: string): Promise<string[]> {
  const name = normalizeDomain(domain);
  if (name === null) throw new Error(`"${domain}" is not a domain name`);
  const query = `SELECT d.name FROM domains d JOIN domains w ON d.webspace_id = w.id WHERE w.name = '${name}'`;
  const result = await tools.check(PLESK_TOOL, ['db', '-Ne', query], { timeoutMs: 30_000 });
  return result.stdout
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/**
 * The reseller who owns a customer: its owner in Plesk's `clients` table (`parent_id`, the
 * owner's `type` 'admin' or 'reseller', as public tools read resellers: lviana/reaper's
 * collector, Plesk's own migration scripts join `clients` the same way). Null for the
 * administrator's own customers. The login is checked as an account name first: it goes into the query.
 */
export async function askPleskForReseller(tools: ToolRunner, login: string): Promise<string | null> {
  const checked = accountNameSchema.safeParse(login);
  if (!checked.success) throw new Error(`"${login}" is not a customer login`);
  const query = `SELECT p.login, p.type FROM clients c JOIN clients p ON p.id = c.parent_id WHERE c.login = '${checked.data}'`;
  const result = await tools.check(PLESK_TOOL, ['db', '-Ne', query], { timeoutMs: 30_000 });
  const [owner, type] = (result.stdout.split(/\r?\n/).find((line) => line.trim() !== '') ?? '').trim().split(/\s+/);
  if (owner === undefined || owner === '' || type === undefined) throw new Error(`plesk db names no owner of customer ${checked.data}`);
  return type === 'reseller' ? owner : null;
}

export interface PleskOwnerSources {
  /** Runs /usr/sbin/plesk: the real one ('/') in production, a fake one below a test root in tests. */
  tools: ToolRunner;
  /** The account the plugin has a website under, for removals (Plesk no longer knows the domain). */
  websiteAccount(domain: string): string | undefined;
}

/** What the hook hands on: the translation, or an event kept until Plesk names the owner (`pending`). */
export type PleskHookResult =
  (AdapterResult & { pending?: undefined }) | { ok: true; events: PanelEvent[]; note: string; pending: OwnerLookup };

/** The event's domain variables, all a kept event needs to be translated later. */
const domainVariables = (env: Record<string, string | undefined>) =>
  Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => /^(NEW|OLD)_(DOMAIN|SUBDOMAIN)_NAME$/.test(entry[0]) && entry[1] !== undefined,
    ),
  );

/** The websites of a subscription the plugin protects: its first domain and the sites Plesk lists under it. */
async function subscriptionWebsites(domain: string, sources: PleskOwnerSources): Promise<{ websites: PleskWebsite[]; note?: string }> {
  let sites: string[] = [];
  let note: string | undefined;
  try {
    sites = await askPleskForSubscriptionSites(sources.tools, domain);
  } catch (error) {
    // The first domain is still known: act on it, and say the other sites could not be listed.
    note = `the other sites of the subscription could not be listed (${error instanceof Error ? error.message : String(error)})`;
  }
  const websites: PleskWebsite[] = [];
  for (const name of [domain, ...sites]) {
    const account = sources.websiteAccount(name);
    if (account !== undefined && !websites.some((w) => w.domain === name.toLowerCase()))
      websites.push({ domain: name.toLowerCase(), account });
  }
  return note === undefined ? { websites } : { websites, note };
}

/**
 * What `wpp hook plesk <event>` queues: the adapter's translation, with the owner found first
 * where the event needs one. A removal of a domain the plugin does not protect is nothing to
 * do. When Plesk cannot name the owner of a new domain, the event is kept (`pending`) for the
 * worker to ask again: a hook never loses it.
 */
export async function translatePleskHook(
  event: string,
  env: Record<string, string | undefined>,
  sources: PleskOwnerSources,
  now: Date = new Date(),
): Promise<PleskHookResult> {
  const subscription = pleskSubscriptionQuestion(event, env);
  if (subscription !== undefined) {
    const { websites, note } = await subscriptionWebsites(subscription, sources);
    const result = translatePleskEvent(event, env, now, undefined, websites);
    return result.ok && note !== undefined ? { ...result, note: `${result.note}; ${note}` } : result;
  }
  const customer = pleskResellerQuestion(event, env);
  if (customer !== undefined) return withReseller(event, env, customer, sources, now);
  const question = pleskOwnerQuestion(event, env);
  if (question === undefined) return translatePleskEvent(event, env, now);
  if (question.removal) {
    const account = sources.websiteAccount(question.domain);
    if (account === undefined) return nothingToDo(`Plesk ${event}: ignored: ${question.domain} is not a website wpp protects`);
    return translatePleskEvent(event, env, now, account);
  }
  let owner: string;
  try {
    owner = await askPleskForOwner(sources.tools, question.domain);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: true,
      events: [],
      note: `Plesk ${event}: the owner of ${question.domain} is not known yet (${message}): kept, wpp asks Plesk again`,
      pending: { panel: 'plesk', event, domain: question.domain, env: domainVariables(env), occurredAt: now.toISOString() },
    };
  }
  return withPleskPackage(event, translatePleskEvent(event, env, now, owner), owner, sources.tools, now);
}

/** client_create with its reseller; when Plesk cannot say, the account is still created and the panel check brings the owner. */
async function withReseller(
  event: string,
  env: Record<string, string | undefined>,
  customer: string,
  sources: PleskOwnerSources,
  now: Date,
): Promise<PleskHookResult> {
  try {
    return translatePleskEvent(event, env, now, undefined, [], await askPleskForReseller(sources.tools, customer));
  } catch (error) {
    const result = translatePleskEvent(event, env, now);
    const why = `its reseller is not known (${error instanceof Error ? error.message : String(error)}): the panel check brings it`;
    return result.ok ? { ...result, note: `${result.note}; ${why}` } : result;
  }
}

/**
 * Runs a kept event (a `panel.owner` job): asks Plesk for the owner again and queues the event
 * as the hook would have. Throws while Plesk cannot say, so the job is tried again later.
 */
export async function resolveOwnerLookup(
  lookup: OwnerLookup,
  deps: { tools: ToolRunner; ingest: (events: PanelEvent[]) => unknown },
): Promise<PanelEvent[]> {
  const owner = await askPleskForOwner(deps.tools, lookup.domain);
  const occurredAt = new Date(lookup.occurredAt);
  const result = await withPleskPackage(
    lookup.event,
    translatePleskEvent(lookup.event, lookup.env, occurredAt, owner),
    owner,
    deps.tools,
    occurredAt,
  );
  // A kept event that cannot be translated never will be: say so rather than retry.
  if (!result.ok) throw new AppError('VALIDATION_FAILED', result.error);
  if (result.events.length > 0) deps.ingest(result.events);
  return result.events;
}
