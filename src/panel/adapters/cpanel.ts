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
 * Addon domains are parked on a subdomain, so adding one also fires Domain::park: both
 * hooks yield the same domain.added, and the same id within the minute.
 */
import { z } from 'zod';
import type { PanelEventDraft } from '../events.js';
import { failure, finishDrafts, firstIp, nothingToDo, relativeLabel, text, type AdapterResult, type SourcedDraft } from './result.js';

export interface CpanelHookRegistration {
  category: string;
  event: string;
  stage: 'pre' | 'post';
  hook: string;
  exectype: 'script';
  blocking: 0 | 1;
  /** Cpanel-category hooks run as the cPanel user; escalated they run as root and can write the plugin's database. */
  escalateprivs?: 1;
}

type Data = Record<string, unknown>;

interface CpanelHook {
  category: 'Whostmgr' | 'Cpanel';
  event: string;
  stage: 'pre' | 'post';
  /** The stage an earlier version registered it at: still translated there, until the next install moves it. */
  legacyStage?: 'pre';
  translate: (data: Data) => SourcedDraft[];
}

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

/** `Cpanel` category: the account is the cPanel user the call ran as. */
function cpanelUser(data: Data): { value: string | undefined; from: string } {
  return { value: text(data.user), from: 'data.user' };
}

function arg(data: Data, key: string): { value: string | undefined; from: string } {
  return { value: text(record(data.args)[key]), from: `data.args.${key}` };
}

function domainEvent(type: 'domain.added' | 'domain.removed', key: string) {
  return (data: Data): SourcedDraft[] => {
    const user = cpanelUser(data);
    const domain = arg(data, key);
    return [{ draft: { type, account: user.value as string, domain: domain.value }, from: { account: user.from, domain: domain.from } }];
  };
}

/** addsubdomain: `domain` is the label (or, leniently, the full name) under `rootdomain`. */
function subdomainAdded(data: Data): SourcedDraft[] {
  const user = cpanelUser(data);
  const label = arg(data, 'domain');
  const root = arg(data, 'rootdomain');
  return [
    {
      draft: {
        type: 'subdomain.added',
        account: user.value as string,
        domain: root.value,
        subdomain: relativeLabel(label.value, root.value),
      },
      from: { account: user.from, domain: root.from, subdomain: label.from },
    },
  ];
}

/**
 * delsubdomain: `domain` is "label_rootdomain" (what cPanel's interface sends; domain names
 * cannot hold "_") or the full name. For a full name without `rootdomain` the first label
 * is taken as the subdomain: cPanel does not say where the root domain starts.
 */
function subdomainRemoved(data: Data): SourcedDraft[] {
  const user = cpanelUser(data);
  const given = arg(data, 'domain');
  const root = text(record(data.args).rootdomain);
  let domain: string | undefined;
  let subdomain: string | undefined;
  const name = given.value;
  if (name !== undefined && name.includes('_')) {
    const cut = name.indexOf('_');
    subdomain = name.slice(0, cut);
    domain = name.slice(cut + 1);
  } else if (name !== undefined && root !== undefined) {
    domain = root;
    subdomain = relativeLabel(name, root);
  } else if (name !== undefined && name.includes('.')) {
    const cut = name.indexOf('.');
    subdomain = name.slice(0, cut);
    domain = name.slice(cut + 1);
  } else {
    domain = root;
    subdomain = name;
  }
  return [
    {
      draft: { type: 'subdomain.removed', account: user.value as string, domain, subdomain },
      from: { account: user.from, domain: given.from, subdomain: given.from },
    },
  ];
}

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
      const drafts: SourcedDraft[] = [
        {
          draft: { type: 'account.created', account: user.value as string, email: email.value, plan: plan.value },
          from: { account: user.from, email: email.from, plan: plan.from },
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
    translate: (data) => {
      const user = whm(data, 'user');
      const domain = firstOf(data, ['new_domain', 'domain']);
      return [
        {
          draft: { type: 'domain.added', account: user.value as string, domain: domain.value },
          from: { account: user.from, domain: domain.from },
        },
      ];
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
  { category: 'Cpanel', event: 'Api2::AddonDomain::addaddondomain', stage: 'post', translate: domainEvent('domain.added', 'newdomain') },
  { category: 'Cpanel', event: 'Api2::AddonDomain::deladdondomain', stage: 'post', translate: domainEvent('domain.removed', 'domain') },
  { category: 'Cpanel', event: 'UAPI::AddonDomain::addaddondomain', stage: 'post', translate: domainEvent('domain.added', 'newdomain') },
  { category: 'Cpanel', event: 'UAPI::AddonDomain::deladdondomain', stage: 'post', translate: domainEvent('domain.removed', 'domain') },
  { category: 'Cpanel', event: 'Api2::SubDomain::addsubdomain', stage: 'post', translate: subdomainAdded },
  { category: 'Cpanel', event: 'UAPI::SubDomain::addsubdomain', stage: 'post', translate: subdomainAdded },
  { category: 'Cpanel', event: 'Api2::SubDomain::delsubdomain', stage: 'post', translate: subdomainRemoved },
];

const hookName = (hook: Pick<CpanelHook, 'category' | 'event' | 'stage'>) => `${hook.category} ${hook.event} (${hook.stage})`;

/** Api2 post-hooks run even when the call failed; `output[0].result` says which. */
function failedApi2Call(event: string, data: Data): string | undefined {
  if (!event.startsWith('Api2::') || !Array.isArray(data.output)) return undefined;
  const first = record(data.output[0]);
  if (!('result' in first)) return undefined;
  const result = first.result;
  const succeeded =
    result === true ||
    (typeof result === 'number' && result !== 0) ||
    (typeof result === 'string' && result.trim() !== '' && result.trim() !== '0');
  if (succeeded) return undefined;
  const reason = text(first.reason);
  return `ignored: the panel call failed (output[0].result=${JSON.stringify(result ?? null)}${reason ? `: ${reason}` : ''})`;
}

export function translateCpanelHook(input: unknown, now?: Date): AdapterResult {
  const parsed = hookInputSchema.safeParse(input);
  if (!parsed.success) {
    return failure(
      'cPanel hook input must be a JSON object {"context":{"category","event","stage"},"data":{...}}',
      parsed.error.issues.map((issue) => ({ path: issue.path.join('.') || 'input', message: issue.message })),
    );
  }
  const { category, event } = parsed.data.context;
  const data = parsed.data.data ?? {};
  const hook = HOOKS.find((candidate) => candidate.category === category && candidate.event === event);
  const stage = parsed.data.context.stage ?? hook?.stage ?? '?';
  // A hook registered at its old stage by an earlier install still arrives there until the next install.
  if (!hook || (stage !== hook.stage && stage !== hook.legacyStage)) {
    return failure(`unsupported cPanel hook ${category}::${event} (${stage}); supported: ${HOOKS.map(hookName).join(', ')}`, [
      { path: 'context', message: `no translation for ${category} ${event} at stage ${stage}` },
    ]);
  }
  const label = `cPanel ${hookName(hook)}`;
  const failed = failedApi2Call(event, data);
  if (failed !== undefined) return nothingToDo(`${label}: ${failed}`);
  const drafts = hook.translate(data);
  if (drafts.length === 0) return nothingToDo(`${label}: a package was edited, no account moved to another one`);
  return finishDrafts('cpanel', label, drafts, now);
}

/**
 * The `--describe` answer: every hook above, never blocking and all at `post`. The plugin must
 * not hold up or abort a panel action: a wpp outage never stops a termination.
 */
export function describeCpanelHooks(command: string): CpanelHookRegistration[] {
  return HOOKS.map((hook) => ({
    category: hook.category,
    event: hook.event,
    stage: hook.stage,
    hook: command,
    exectype: 'script',
    blocking: 0,
    ...(hook.category === 'Cpanel' ? { escalateprivs: 1 as const } : {}),
  }));
}
