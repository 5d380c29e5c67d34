/**
 * Protection per hosting package on Plesk: the service-plan permission "Web Protection" the
 * extension registers (panels/plesk/plib/hooks/Permissions.php), read from Plesk's database.
 *
 * Confirmed against vendor material (no real Plesk here):
 * - Plesk's extensions guide ("Integrate with Plesk Service Plans"): an extension's permission
 *   is kept with the extension's id in front ('web_protection' of extension 'wpp' is
 *   `wpp_web_protection`), with the plan's other items in the TmplData table.
 * - How a subscription reaches its plan's items: domains -> Subscriptions (object_id) ->
 *   PlansSubscriptions (subscription_id, plan_id) -> Templates (type 'domain': service plans,
 *   not add-ons) -> TmplData (tmpl_id, element, value 'true'/'false'), as Plesk International's
 *   own script that enables Web Deploy per service plan queries them; a domain's customer is
 *   `domains.cl_id` -> `clients.id`, as public tools join them.
 * Not confirmed:
 * - That Plesk writes a TmplData row for a plan the host never saved after the extension came:
 *   no row reads as the permission's default (on), as the extension declares it.
 * - A subscription unlocked from its plan ("Customize") keeps its own values elsewhere
 *   (SubscriptionProperties); this reads what its plan says.
 * - No `plesk bin service_plan --info` / `subscription --info` layout listing extension
 *   permissions was found, so the CLI tools are not read for it.
 */
import type { ToolRunner } from '../install/tools.js';
import { finishDrafts, type AdapterResult, type SourcedDraft } from './adapters/result.js';
import { accountNameSchema } from './events.js';
import { PROTECTION_FEATURE } from './protection-feature.js';

const PLESK = '/usr/sbin/plesk';

/** A stored value: 'true'/'false' as Plesk stores plan permissions; no row (NULL) is the permission's default, on. */
export function permissionValue(raw: string | undefined): boolean {
  return raw?.trim().toLowerCase() !== 'false';
}

/** Every service plan and its permission: `name<TAB>value` lines (plesk db -Ne; NULL without a row). */
export const PLESK_PLANS_QUERY =
  `SELECT t.name, td.value FROM Templates t LEFT JOIN TmplData td ON td.tmpl_id = t.id AND td.element = '${PROTECTION_FEATURE}' ` +
  "WHERE t.type = 'domain'";

/** Each subscription's customer, first domain, plan and permission: `login<TAB>domain<TAB>plan<TAB>value` lines. */
export const PLESK_SUBSCRIPTIONS_QUERY =
  'SELECT c.login, d.name, t.name, td.value FROM domains d JOIN clients c ON c.id = d.cl_id ' +
  'JOIN Subscriptions s ON s.object_id = d.id JOIN PlansSubscriptions ps ON ps.subscription_id = s.id ' +
  "JOIN Templates t ON t.id = ps.plan_id AND t.type = 'domain' " +
  `LEFT JOIN TmplData td ON td.tmpl_id = t.id AND td.element = '${PROTECTION_FEATURE}'`;

export interface PleskPlan {
  name: string;
  protection: boolean;
}

export interface PleskSubscriptionPlan {
  account: string;
  domain: string;
  plan: string;
  protection: boolean;
}

const rows = (out: string) =>
  out
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .map((line) => line.split('\t').map((field) => field.trim()));

/** The plans query's output (pure). */
export function parsePleskPlans(out: string): PleskPlan[] {
  return rows(out).flatMap(([name, value]) => (name ? [{ name, protection: permissionValue(value) }] : []));
}

/** The subscriptions query's output (pure). */
export function parsePleskSubscriptionPlans(out: string): PleskSubscriptionPlan[] {
  return rows(out).flatMap(([login, domain, plan, value]) =>
    login && domain && plan
      ? [{ account: login.toLowerCase(), domain: domain.toLowerCase(), plan, protection: permissionValue(value) }]
      : [],
  );
}

/**
 * An account's package, from its subscriptions: wpp keeps protection per account, and a Plesk
 * customer may hold subscriptions of several plans. The account counts as included when any of
 * them includes it (releasing would also take the websites of the plan that includes it), and
 * its plan is then the first such plan.
 */
export function accountPackage(subscriptions: readonly PleskSubscriptionPlan[]): { plan: string; protection: boolean } | undefined {
  const sorted = [...subscriptions].sort((a, b) => a.domain.localeCompare(b.domain));
  const chosen = sorted.find((s) => s.protection) ?? sorted[0];
  return chosen === undefined ? undefined : { plan: chosen.plan, protection: chosen.protection };
}

/** Each account's package (see accountPackage). */
export function accountPackages(subscriptions: readonly PleskSubscriptionPlan[]): Map<string, { plan: string; protection: boolean }> {
  const byAccount = new Map<string, PleskSubscriptionPlan[]>();
  for (const s of subscriptions) byAccount.set(s.account, [...(byAccount.get(s.account) ?? []), s]);
  const packages = new Map<string, { plan: string; protection: boolean }>();
  for (const [account, owned] of byAccount) {
    const found = accountPackage(owned);
    if (found) packages.set(account, found);
  }
  return packages;
}

/** The package of one customer, from their subscriptions (the hook); undefined when none has a plan yet. The login goes into the query: checked first. */
export async function askPleskForPackage(tools: ToolRunner, login: string): Promise<{ plan: string; protection: boolean } | undefined> {
  const checked = accountNameSchema.safeParse(login);
  if (!checked.success) throw new Error(`"${login}" is not a customer login`);
  const result = await tools.check(PLESK, ['db', '-Ne', `${PLESK_SUBSCRIPTIONS_QUERY} WHERE c.login = '${checked.data}'`], {
    timeoutMs: 30_000,
  });
  return accountPackage(parsePleskSubscriptionPlans(result.stdout));
}

/** Plans and subscriptions for the listing; undefined (nothing said of packages) when Plesk's database cannot be read. */
export async function readPleskPackages(
  tools: ToolRunner,
): Promise<{ plans: PleskPlan[]; accounts: Map<string, { plan: string; protection: boolean }> } | undefined> {
  try {
    const plans = parsePleskPlans((await tools.check(PLESK, ['db', '-Ne', PLESK_PLANS_QUERY])).stdout);
    const subscriptions = parsePleskSubscriptionPlans((await tools.check(PLESK, ['db', '-Ne', PLESK_SUBSCRIPTIONS_QUERY])).stdout);
    return { plans, accounts: accountPackages(subscriptions) };
  } catch {
    return undefined;
  }
}

/**
 * The events that start a subscription: Plesk's domain_create (the subscription's first domain)
 * and phys_hosting_create (its hosting). Its plan is known from then on; a further site
 * (site_create) has its subscription's. A plan's permission changed or a subscription moved to
 * another plan reach wpp through the panel check (`wpp import`): Plesk's service-plan event
 * (template_domain_update, which public scripts register handlers for) has no documented
 * variables where we looked, and no event for a subscription switched to another plan was found.
 */
const SUBSCRIPTION_STARTS: ReadonlySet<string> = new Set(['domain_create', 'phys_hosting_create']);

/**
 * A subscription's start with the customer's package first: a plan.changed saying whether
 * their plans include web protection, before the domain.added, so core keeps a domain of a plan
 * without it from the provider. When Plesk's database cannot say, the domain is still queued
 * (the package then reads as before) and the note says why.
 */
export async function withPleskPackage(
  event: string,
  result: AdapterResult,
  owner: string,
  tools: ToolRunner,
  now: Date,
): Promise<AdapterResult> {
  if (!result.ok || result.events.length === 0 || !SUBSCRIPTION_STARTS.has(event)) return result;
  let found: { plan: string; protection: boolean } | undefined;
  try {
    found = await askPleskForPackage(tools, owner);
  } catch (error) {
    const why = `the package is not known (${error instanceof Error ? error.message : String(error)}): the panel check brings it`;
    return { ...result, note: `${result.note}; ${why}` };
  }
  if (found === undefined) return result;
  const draft: SourcedDraft = {
    draft: { type: 'plan.changed', account: owner, plan: found.plan, protection: found.protection },
    from: { account: 'the owner from plesk bin domain --info', plan: "the customer's service plan from plesk db" },
  };
  const said = finishDrafts('plesk', `Plesk ${event}`, [draft], now);
  if (!said.ok) return result;
  return { ok: true, events: [...said.events, ...result.events], note: `${said.note}; ${result.note}` };
}
