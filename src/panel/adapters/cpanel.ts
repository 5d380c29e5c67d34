/**
 * cPanel & WHM Standardized Hooks -> panel events. The hook script gets one JSON object on
 * stdin, `{context:{category,event,stage,...}, data:{...}}`; this module only translates it.
 *
 * Data shapes, as cPanel's own code hands them (see test/fixtures/panels/README.md):
 * - Whostmgr hooks pass the operation's arguments in `data`; suspend/unsuspend nest them in
 *   `data.args`, so `user` is read from `data` first and `data.args` second.
 * - Domain::park passes `new_domain` (the parked name) and `target_domain`; Domain::unpark
 *   passes `domain` and `parent_domain`.
 * - `Cpanel` category hooks get `{args, output, user}` for Api2 and `{args, result, user}`
 *   for UAPI. Api2 post-hooks also run when the call failed (check `output[0].result`);
 *   UAPI post-hooks only run after a successful call, so there is nothing to check.
 * - Domain::addsubdomain / delsubdomain pass `user`, `subdomain` and `rootdomain`. cPanel's
 *   code (Cpanel::Sub) passes the label; its "Whostmgr Functions" guide shows the full name:
 *   both are read. They run as root on every path (WHM, cPanel's Api2 and UAPI, restores).
 * - An addon domain is a subdomain of the main domain (`<label>.<main>`, Cpanel::AddonDomain)
 *   with the addon parked on it: the subdomain's hooks fire first, then Domain::park with that
 *   subdomain as `target_domain`. The park hook takes the hidden subdomain off again.
 * - PkgAcct::Restore (restores, transfers) and Accounts::Modify (renames, a new main domain)
 *   read the account's domains from the panel (`whmapi1 get_domain_info`), see CpanelPanel.
 * The Cpanel-category hooks (Api2/UAPI addon and subdomain calls) are no longer registered:
 * the Whostmgr hooks see the same changes as root. Payloads of an earlier install's
 * registrations are answered "nothing to do" until the next install removes them.
 */
import { z } from 'zod';
import type { PanelEventDraft } from '../events.js';
import {
  failure,
  finishDrafts,
  firstIp,
  nothingToDo,
  relativeLabel,
  HOST_OWNERS,
  resellerOf,
  text,
  type AdapterResult,
  type SourcedDraft,
} from './result.js';

/*
 * Who owns an account (the host's own: HOST_OWNERS.cpanel in ./result.ts). WHM keeps it as the account's OWNER (/var/cpanel/users/<user>, and
 * `owner` in listaccts); createacct takes it as `owner` (WHM API 1 createacct: the reseller
 * who calls it, else the one named) and the Accounts::Create hook gets createacct's options,
 * so `data.owner` is the reseller (root: the host's own account). modifyacct takes a new owner
 * as `OWNER` (upper-case, as its other account keys: CONTACTEMAIL...), and its Accounts::Modify
 * hook hands modifyacct's arguments on: a transfer between resellers. Public tools that read
 * resellers read the same OWNER field (/var/cpanel/users/<user>, e.g. lviana/reaper's collector).
 */

export interface CpanelHookRegistration {
  category: string;
  event: string;
  stage: 'pre' | 'post';
  hook: string;
  exectype: 'script';
  blocking: 0 | 1;
}

type Data = Record<string, unknown>;

/** One domain of an account as `whmapi1 get_domain_info` lists it. */
export interface CpanelDomain {
  domain: string;
  type: 'main' | 'addon' | 'parked' | 'sub';
  parentDomain?: string | undefined;
  docroot?: string | undefined;
}

/** What the hooks that need more than their payload read: the panel's domains, the plugin's websites. */
export interface CpanelPanel {
  /** The user's domains now (whmapi1 get_domain_info, as root). */
  domainsOf(user: string): Promise<CpanelDomain[]>;
  /**
   * Whether the package includes web protection (the Feature Manager feature wpp_web_protection,
   * panel/listings/cpanel-features.ts); undefined: cPanel does not know the package. Absent: not asked.
   */
  packageProtection?(plan: string): Promise<boolean | undefined>;
}

/** The plugin's own record, read by the hook process (it runs as root). */
export interface CpanelLocal {
  /** The domains of the account's active websites. */
  websitesOf(account: string): string[];
}

const NO_LOCAL: CpanelLocal = { websitesOf: () => [] };

interface CpanelHook {
  category: 'Whostmgr' | 'PkgAcct' | 'ConvertAddon';
  event: string;
  stage: 'pre' | 'post';
  /** The stage an earlier version registered it at: still translated there, until the next install moves it. */
  legacyStage?: 'pre';
  translate?: (data: Data, local: CpanelLocal) => SourcedDraft[];
  /** Hooks whose payload is not enough: they read the account's domains from the panel. */
  readPanel?: (data: Data, panel: CpanelPanel, local: CpanelLocal) => Promise<{ drafts: SourcedDraft[]; note?: string }>;
}

/**
 * Registered by installs before this one (escalated Cpanel-category hooks): the Whostmgr
 * Domain hooks now see the same changes, so their payloads are nothing to do.
 */
const RETIRED = new Set([
  'Cpanel Api2::AddonDomain::addaddondomain',
  'Cpanel Api2::AddonDomain::deladdondomain',
  'Cpanel UAPI::AddonDomain::addaddondomain',
  'Cpanel UAPI::AddonDomain::deladdondomain',
  'Cpanel Api2::SubDomain::addsubdomain',
  'Cpanel UAPI::SubDomain::addsubdomain',
  'Cpanel Api2::SubDomain::delsubdomain',
]);

const hookInputSchema = z.looseObject({
  context: z.looseObject({
    category: z.string().min(1),
    event: z.string().min(1),
    stage: z.string().optional(),
  }),
  data: z.record(z.string(), z.unknown()).nullish(),
});

const record = (value: unknown): Data => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Data) : {});

/** Whostmgr hooks: a field of `data`, or of `data.args` where cPanel nests the arguments. */
function whm(data: Data, key: string): { value: string | undefined; from: string } {
  const direct = text(data[key]);
  if (direct !== undefined) return { value: direct, from: `data.${key}` };
  const nested = text(record(data.args)[key]);
  return { value: nested, from: nested === undefined ? `data.${key}` : `data.args.${key}` };
}

function firstOf(data: Data, keys: string[]): { value: string | undefined; from: string } {
  for (const key of keys) {
    const found = whm(data, key);
    if (found.value !== undefined) return found;
  }
  return { value: undefined, from: keys.map((key) => `data.${key}`).join(' or ') };
}

function accountEvent(type: PanelEventDraft['type']) {
  return (data: Data): SourcedDraft[] => {
    const user = whm(data, 'user');
    return [{ draft: { type, account: user.value as string }, from: { account: user.from } }];
  };
}

/** Domain::addsubdomain / delsubdomain: the label (or the full name) under `rootdomain`. */
function subdomainEvent(type: 'subdomain.added' | 'subdomain.removed') {
  return (data: Data): SourcedDraft[] => {
    const user = whm(data, 'user');
    const sub = whm(data, 'subdomain');
    const root = whm(data, 'rootdomain');
    return [
      {
        draft: { type, account: user.value as string, domain: root.value, subdomain: relativeLabel(sub.value, root.value) },
        from: { account: user.from, domain: root.from, subdomain: sub.from },
      },
    ];
  };
}

/**
 * The website an account's subdomain name belongs to: the longest of `websites` it ends with,
 * and its label there. Null when it is none of them (or is one of them itself).
 */
function underWebsite(name: string, websites: readonly string[]): { domain: string; label: string } | null {
  const lower = name.toLowerCase().replace(/\.$/, '');
  if (websites.includes(lower)) return null;
  const base = websites.filter((w) => lower.endsWith(`.${w}`)).sort((a, b) => b.length - a.length)[0];
  return base ? { domain: base, label: lower.slice(0, -(base.length + 1)) } : null;
}

/** Every website of a listing: main, addon and parked domains; subdomains under the longest website they end with. */
function listingDrafts(account: string, domains: CpanelDomain[]): SourcedDraft[] {
  const websites = domains.filter((d) => d.type !== 'sub').map((d) => d.domain.toLowerCase());
  // An addon is served by the virtual host of the subdomain it is parked on: cPanel lists both with the same document root.
  const addonRoots = new Set(domains.filter((d) => d.type === 'addon' && d.docroot).map((d) => d.docroot));
  const from = { account: 'data.user', domain: 'get_domain_info' };
  const drafts: SourcedDraft[] = [{ draft: { type: 'account.created', account }, from }];
  for (const d of domains) if (d.type !== 'sub') drafts.push({ draft: { type: 'domain.added', account, domain: d.domain }, from });
  for (const d of domains) {
    if (d.type !== 'sub' || (d.docroot && addonRoots.has(d.docroot))) continue;
    const under = underWebsite(d.domain, websites);
    if (under) drafts.push({ draft: { type: 'subdomain.added', account, domain: under.domain, subdomain: under.label }, from });
  }
  return drafts;
}

const failedRead = (error: unknown) =>
  `could not read the account's domains from cPanel (${error instanceof Error ? error.message : String(error)})`;

const HOOKS: readonly CpanelHook[] = [
  {
    category: 'Whostmgr',
    event: 'Accounts::Create',
    stage: 'post',
    translate: (data) => {
      const user = firstOf(data, ['user', 'username']);
      const email = whm(data, 'contactemail');
      const plan = whm(data, 'plan');
      const domain = whm(data, 'domain');
      // createacct's `ip` is the "dedicated IP? y/n" flag; the address, when chosen, is in `customip`.
      const ip = firstIp(data.ip, data.customip);
      const owner = whm(data, 'owner');
      const reseller = resellerOf(owner.value, HOST_OWNERS.cpanel);
      const drafts: SourcedDraft[] = [
        {
          draft: { type: 'account.created', account: user.value as string, email: email.value, plan: plan.value, reseller },
          from: { account: user.from, email: email.from, plan: plan.from, reseller: owner.from },
        },
      ];
      if (domain.value !== undefined) {
        drafts.push({
          draft: { type: 'domain.added', account: user.value as string, domain: domain.value, plan: plan.value, ip },
          from: { account: user.from, domain: domain.from, plan: plan.from, ip: 'data.ip' },
        });
      }
      return drafts;
    },
  },
  // Post, and only `user` read: killacct runs its hooks blocking (a pre hook's 0 stops the termination), and wpp needs nothing of the account's data.
  { category: 'Whostmgr', event: 'Accounts::Remove', stage: 'post', legacyStage: 'pre', translate: accountEvent('account.deleted') },
  { category: 'Whostmgr', event: 'Accounts::suspendacct', stage: 'post', translate: accountEvent('account.suspended') },
  { category: 'Whostmgr', event: 'Accounts::unsuspendacct', stage: 'post', translate: accountEvent('account.unsuspended') },
  {
    category: 'Whostmgr',
    event: 'Accounts::change_package',
    stage: 'post',
    translate: (data) => {
      const user = whm(data, 'user');
      const plan = whm(data, 'new_pkg');
      // Without a user a package was edited (its limits), and no account moved to another one.
      if (user.value === undefined) return [];
      return [
        { draft: { type: 'plan.changed', account: user.value as string, plan: plan.value }, from: { account: user.from, plan: plan.from } },
      ];
    },
  },
  {
    category: 'Whostmgr',
    event: 'Domain::park',
    stage: 'post',
    translate: (data, local) => {
      const user = whm(data, 'user');
      const domain = firstOf(data, ['new_domain', 'domain']);
      const drafts: SourcedDraft[] = [
        {
          draft: { type: 'domain.added', account: user.value as string, domain: domain.value },
          from: { account: user.from, domain: domain.from },
        },
      ];
      // An addon domain sits on a subdomain of the account's website (target_domain): that
      // subdomain, added by Domain::addsubdomain a moment before, is the addon's, not one to protect.
      const target = whm(data, 'target_domain').value;
      const hidden = target && user.value ? underWebsite(target, local.websitesOf(user.value.toLowerCase())) : null;
      if (hidden) {
        drafts.push({
          draft: { type: 'subdomain.removed', account: user.value as string, domain: hidden.domain, subdomain: hidden.label },
          from: { account: user.from, domain: 'data.target_domain', subdomain: 'data.target_domain' },
        });
      }
      return drafts;
    },
  },
  {
    category: 'Whostmgr',
    event: 'Domain::unpark',
    stage: 'post',
    translate: (data) => {
      const user = whm(data, 'user');
      const domain = whm(data, 'domain');
      return [
        {
          draft: { type: 'domain.removed', account: user.value as string, domain: domain.value },
          from: { account: user.from, domain: domain.from },
        },
      ];
    },
  },
  { category: 'Whostmgr', event: 'Domain::addsubdomain', stage: 'post', translate: subdomainEvent('subdomain.added') },
  { category: 'Whostmgr', event: 'Domain::delsubdomain', stage: 'post', translate: subdomainEvent('subdomain.removed') },
  {
    // modifyacct: `user` the name before, `newuser` a new name, `domain` a new main domain, `OWNER` a new owner.
    category: 'Whostmgr',
    event: 'Accounts::Modify',
    stage: 'post',
    readPanel: async (data, panel, local) => {
      const user = whm(data, 'user');
      const newUser = whm(data, 'newuser');
      const domain = whm(data, 'domain');
      const renamed = newUser.value !== undefined && user.value !== undefined && newUser.value.toLowerCase() !== user.value.toLowerCase();
      const account = (renamed ? newUser.value : user.value) as string;
      const drafts: SourcedDraft[] = [];
      if (renamed) {
        drafts.push({
          draft: { type: 'account.renamed', account, previousAccount: user.value },
          from: { account: newUser.from, previousAccount: user.from },
        });
      }
      // A new owner (modifyacct OWNER): under the new name, after the rename.
      const owner = firstOf(data, ['OWNER', 'owner']);
      if (owner.value !== undefined && user.value !== undefined) {
        drafts.push({
          draft: { type: 'account.transferred', account, reseller: resellerOf(owner.value, HOST_OWNERS.cpanel) },
          from: { account: user.from, reseller: owner.from },
        });
      }
      if (domain.value === undefined || user.value === undefined) {
        return { drafts, ...(drafts.length === 0 ? { note: 'no new name, owner or main domain' } : {}) };
      }
      drafts.push({ draft: { type: 'domain.added', account, domain: domain.value }, from: { account: user.from, domain: domain.from } });
      // modifyacct names only the new main domain: the old one is the website the plugin has that the panel no longer lists.
      let listed: CpanelDomain[];
      try {
        listed = await panel.domainsOf(account);
      } catch (error) {
        return { drafts, note: `${failedRead(error)}: the previous main domain stays protected until \`wpp import cpanel\`` };
      }
      const names = new Set(listed.map((d) => d.domain.toLowerCase()));
      // A listing that does not show the new main domain yet (cPanel's domain cache lags) cannot say what is gone.
      if (!names.has(domain.value.toLowerCase())) {
        return {
          drafts,
          note: `cPanel does not list ${domain.value} for ${account} yet: the previous main domain stays protected until \`wpp import cpanel\``,
        };
      }
      const known = [...new Set([...local.websitesOf(user.value.toLowerCase()), ...local.websitesOf(account.toLowerCase())])];
      for (const website of known) {
        if (names.has(website) || website === domain.value.toLowerCase()) continue;
        drafts.push({
          draft: { type: 'domain.removed', account, domain: website },
          from: { account: user.from, domain: 'get_domain_info' },
        });
      }
      return { drafts };
    },
  },
  {
    // A restore or transfer (post: `user`, `old_user`, `domain`, `extract_dir`): the park and
    // subdomain hooks are not replayed, so every domain the account has now is read from cPanel.
    category: 'PkgAcct',
    event: 'Restore',
    stage: 'post',
    readPanel: async (data, panel) => {
      const user = whm(data, 'user');
      if (user.value === undefined) {
        return { drafts: [{ draft: { type: 'account.created', account: '' }, from: { account: user.from } }] };
      }
      let listed: CpanelDomain[];
      try {
        listed = await panel.domainsOf(user.value);
      } catch (error) {
        // Still bring the account and the main domain the payload names; the rest needs the listing.
        const domain = whm(data, 'domain');
        const drafts: SourcedDraft[] = [{ draft: { type: 'account.created', account: user.value }, from: { account: user.from } }];
        if (domain.value)
          drafts.push({
            draft: { type: 'domain.added', account: user.value, domain: domain.value },
            from: { account: user.from, domain: domain.from },
          });
        return { drafts, note: `${failedRead(error)}: only the main domain was queued; run \`wpp import cpanel\`` };
      }
      return { drafts: listingDrafts(user.value, listed) };
    },
  },
  {
    // WHM's Convert Addon Domain to Account: `username` is the new account, `domain` the addon it takes over.
    category: 'ConvertAddon',
    event: 'convert_addon',
    stage: 'post',
    translate: (data) => {
      const user = firstOf(data, ['username', 'user']);
      const domain = whm(data, 'domain');
      return [
        {
          draft: { type: 'domain.moved', account: user.value as string, domain: domain.value },
          from: { account: user.from, domain: domain.from },
        },
      ];
    },
  },
];

const hookName = (hook: Pick<CpanelHook, 'category' | 'event' | 'stage'>) => `${hook.category} ${hook.event} (${hook.stage})`;

const parseInput = (input: unknown) => hookInputSchema.safeParse(input);
type ParsedInput = Extract<ReturnType<typeof parseInput>, { success: true }>['data'];

/** The hook of a parsed input, or the failure to answer; retired hooks answer nothing to do. */
function hookOf(input: unknown): { hook: CpanelHook; data: Data; label: string } | AdapterResult {
  const parsed = parseInput(input);
  if (!parsed.success) {
    return failure(
      'cPanel hook input must be a JSON object {"context":{"category","event","stage"},"data":{...}}',
      parsed.error.issues.map((issue) => ({ path: issue.path.join('.') || 'input', message: issue.message })),
    );
  }
  const { category, event } = (parsed.data as ParsedInput).context;
  const data = parsed.data.data ?? {};
  if (RETIRED.has(`${category} ${event}`)) {
    return nothingToDo(`cPanel ${category} ${event}: registered by an earlier install; the Whostmgr Domain hooks see this change`);
  }
  const hook = HOOKS.find((candidate) => candidate.category === category && candidate.event === event);
  const stage = parsed.data.context.stage ?? hook?.stage ?? '?';
  // A hook registered at its old stage by an earlier install still arrives there until the next install.
  if (!hook || (stage !== hook.stage && stage !== hook.legacyStage)) {
    return failure(`unsupported cPanel hook ${category}::${event} (${stage}); supported: ${HOOKS.map(hookName).join(', ')}`, [
      { path: 'context', message: `no translation for ${category} ${event} at stage ${stage}` },
    ]);
  }
  return { hook, data, label: `cPanel ${hookName(hook)}` };
}

function finish(label: string, drafts: SourcedDraft[], now: Date | undefined, note?: string): AdapterResult {
  if (drafts.length === 0) return nothingToDo(`${label}: ${note ?? 'a package was edited, no account moved to another one'}`);
  const result = finishDrafts('cpanel', label, drafts, now);
  return result.ok && note ? { ...result, note: `${result.note}; ${note}` } : result;
}

/**
 * Translates a hook whose payload is enough. `local` is the plugin's record, for the addon's
 * hidden subdomain (none: no website is known, nothing is taken off).
 */
export function translateCpanelHook(input: unknown, now?: Date, local: CpanelLocal = NO_LOCAL): AdapterResult {
  const found = hookOf(input);
  if ('ok' in found) return found;
  const { hook, data, label } = found;
  if (!hook.translate) return failure(`${label} reads the account's domains from cPanel: translate it with readCpanelHook`);
  return finish(label, hook.translate(data, local), now);
}

/** Translates any hook, reading the panel for the ones whose payload is not enough (restores, modifyacct). */
export async function readCpanelHook(input: unknown, panel: CpanelPanel, local: CpanelLocal, now?: Date): Promise<AdapterResult> {
  const found = hookOf(input);
  if ('ok' in found) return found;
  const { hook, data, label } = found;
  if (!hook.readPanel) {
    if (!hook.translate) return translateCpanelHook(input, now, local);
    return finish(label, await withPackageProtection(hook.translate(data, local), panel), now);
  }
  const { drafts, note } = await hook.readPanel(data, panel, local);
  return finish(label, drafts, now, note);
}

/**
 * An account created on, or moved to, a package carries whether the package includes web
 * protection (core/package-protection.ts). A package cPanel cannot be asked about says nothing:
 * the hook must not fail for it (the next `wpp import` reads the packages again).
 */
async function withPackageProtection(drafts: SourcedDraft[], panel: CpanelPanel): Promise<SourcedDraft[]> {
  const ask = panel.packageProtection;
  if (!ask) return drafts;
  return Promise.all(
    drafts.map(async (sourced) => {
      const { draft } = sourced;
      if ((draft.type !== 'account.created' && draft.type !== 'plan.changed') || draft.plan === undefined) return sourced;
      const protection = await ask(draft.plan).catch(() => undefined);
      return protection === undefined ? sourced : { draft: { ...draft, protection }, from: sourced.from };
    }),
  );
}

/**
 * The `--describe` answer: every hook above, never blocking and all at `post`. The plugin must
 * not hold up or abort a panel action: a wpp outage never stops a termination. Every one runs
 * as root (cPanel's guide: "Action code runs as: root"), so none needs escalation.
 */
export function describeCpanelHooks(command: string): CpanelHookRegistration[] {
  return HOOKS.map((hook) => ({
    category: hook.category,
    event: hook.event,
    stage: hook.stage,
    hook: command,
    exectype: 'script',
    blocking: 0,
  }));
}
