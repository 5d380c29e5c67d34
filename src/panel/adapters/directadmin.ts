/**
 * DirectAdmin hook scripts -> panel events. DirectAdmin runs
 * scripts/custom/<hook>.sh (or <hook>/<name>.sh) with the values in the environment;
 * user_create_post and user_modify_post also get the whole user.conf (username, email,
 * domain, package, ip...). A user moved to another package is a user_modify_post naming it
 * (the package_* hooks are for editing the packages themselves).
 *
 * Two hooks say less than wpp needs, and get what the user's files say besides (read by
 * ../directadmin-files.ts, since adapters do no I/O): user_restore_post names only the user,
 * and a restore replays no domain hook; domain_change_post names the old and the new domain,
 * not the subdomains DirectAdmin moved along.
 */
import { directAdminProtection } from '../listings/directadmin.js';
import {
  failure,
  finishDrafts,
  HOST_OWNERS,
  nothingToDo,
  relativeLabel,
  resellerOf,
  text,
  type AdapterResult,
  type SourcedDraft,
} from './result.js';

/*
 * Who owns a user (the host's own: HOST_OWNERS.directadmin in ./result.ts): user.conf's `creator` (the reseller who created it; `admin`, or another
 * admin's name, for the host's own users), which DirectAdmin hands user_create_post and
 * user_modify_post with the rest of user.conf (the recorded user.conf of the fixtures has it
 * beside `usertype`). DirectAdmin documents no hook of its own for a user moved to another
 * reseller (its scripts/move_user_to_reseller.sh); user_modify_post carries `creator` after
 * any change, so it is read there as the owner now (a transfer when it differs, nothing
 * otherwise), and the scheduled panel check finds a move no hook reported.
 */

type Env = Record<string, string | undefined>;

export const DIRECTADMIN_HOOKS = [
  'user_create_post',
  'user_destroy_post',
  'user_suspend_post',
  // DirectAdmin's unsuspension hook: it has no user_unsuspend_post.
  'user_activate_post',
  'user_modify_post',
  'domain_create_post',
  'domain_destroy_post',
  'subdomain_create_post',
  'subdomain_destroy_post',
  // A domain renamed: `domain` is the old name, `newdomain` the new one.
  'domain_change_post',
  // A user restored from a backup (or moved in from another server): its domains come from its files.
  'user_restore_post',
] as const satisfies readonly string[];

/** What a user's files say (user.conf, domains.list, domains/<domain>.subdomains), for the hooks whose environment does not. */
export interface DirectAdminUserFiles {
  email: string | undefined;
  plan: string | undefined;
  suspended: boolean;
  /** user.conf's creator as a reseller (null: the host's own; absent: not said). */
  reseller?: string | null | undefined;
  ip: string | undefined;
  domains: { domain: string; subdomains: string[] }[];
}

type DirectAdminHook = (typeof DIRECTADMIN_HOOKS)[number];

function value(env: Env, name: string): { value: string | undefined; from: string } {
  return { value: text(env[name]), from: name };
}

function accountOnly(type: 'account.deleted' | 'account.suspended' | 'account.unsuspended') {
  return (env: Env): SourcedDraft[] => {
    const account = value(env, 'username');
    return [{ draft: { type, account: account.value as string }, from: { account: account.from } }];
  };
}

function domainEvent(type: 'domain.added' | 'domain.removed') {
  return (env: Env): SourcedDraft[] => {
    const account = value(env, 'username');
    const domain = value(env, 'domain');
    return [
      { draft: { type, account: account.value as string, domain: domain.value }, from: { account: account.from, domain: domain.from } },
    ];
  };
}

function subdomainEvent(type: 'subdomain.added' | 'subdomain.removed') {
  return (env: Env): SourcedDraft[] => {
    const account = value(env, 'username');
    const domain = value(env, 'domain');
    const subdomain = value(env, 'subdomain');
    return [
      {
        draft: { type, account: account.value as string, domain: domain.value, subdomain: relativeLabel(subdomain.value, domain.value) },
        from: { account: account.from, domain: domain.from, subdomain: subdomain.from },
      },
    ];
  };
}

/** Where a value read from the user's files came from, for messages. */
const FILES = "the user's files";

function domainChange(env: Env, files: DirectAdminUserFiles | undefined): SourcedDraft[] {
  const account = value(env, 'username');
  const old = value(env, 'domain');
  const renamed = value(env, 'newdomain');
  const ip = value(env, 'ip');
  const name = account.value as string;
  // DirectAdmin renames domains/<old>.subdomains with the domain: the new name keeps them.
  const moved = files?.domains.find((entry) => entry.domain.toLowerCase() === renamed.value?.toLowerCase())?.subdomains ?? [];
  return [
    {
      draft: { type: 'domain.added', account: name, domain: renamed.value, ip: ip.value },
      from: { account: account.from, domain: renamed.from, ip: ip.from },
    },
    ...moved.map((label): SourcedDraft => ({
      draft: { type: 'subdomain.added', account: name, domain: renamed.value, subdomain: label },
      from: { account: account.from, domain: renamed.from, subdomain: FILES },
    })),
    { draft: { type: 'domain.removed', account: name, domain: old.value }, from: { account: account.from, domain: old.from } },
  ];
}

/** A restored user as its files have it: the account, each domain with its subdomains, and its suspension. */
function restoredUser(env: Env, files: DirectAdminUserFiles): SourcedDraft[] {
  const account = value(env, 'username');
  const name = account.value as string;
  const from = { account: account.from, email: FILES, plan: FILES, domain: FILES, subdomain: FILES, ip: FILES, reseller: FILES };
  return [
    { draft: { type: 'account.created', account: name, email: files.email, plan: files.plan, reseller: files.reseller }, from },
    ...files.domains.flatMap(({ domain, subdomains }): SourcedDraft[] => [
      { draft: { type: 'domain.added', account: name, domain, plan: files.plan, ip: files.ip }, from },
      ...subdomains.map((subdomain): SourcedDraft => ({ draft: { type: 'subdomain.added', account: name, domain, subdomain }, from })),
    ]),
    ...(files.suspended ? [{ draft: { type: 'account.suspended', account: name }, from } satisfies SourcedDraft] : []),
  ];
}

const TRANSLATIONS: Record<Exclude<DirectAdminHook, 'domain_change_post' | 'user_restore_post'>, (env: Env) => SourcedDraft[]> = {
  user_create_post: (env) => {
    const account = value(env, 'username');
    const email = value(env, 'email');
    const plan = value(env, 'package');
    const domain = value(env, 'domain');
    const ip = value(env, 'ip');
    const creator = value(env, 'creator');
    const reseller = resellerOf(creator.value, HOST_OWNERS.directadmin);
    const protection = directAdminProtection((name) => env[name]);
    const drafts: SourcedDraft[] = [
      {
        draft: { type: 'account.created', account: account.value as string, email: email.value, plan: plan.value, reseller, protection },
        from: { account: account.from, email: email.from, plan: plan.from, reseller: creator.from },
      },
    ];
    if (domain.value !== undefined) {
      drafts.push({
        draft: { type: 'domain.added', account: account.value as string, domain: domain.value, plan: plan.value, ip: ip.value },
        from: { account: account.from, domain: domain.from, plan: plan.from, ip: ip.from },
      });
    }
    return drafts;
  },
  user_destroy_post: accountOnly('account.deleted'),
  user_suspend_post: accountOnly('account.suspended'),
  user_activate_post: accountOnly('account.unsuspended'),
  user_modify_post: (env) => {
    const account = value(env, 'username');
    const plan = value(env, 'package');
    const creator = value(env, 'creator');
    const drafts: SourcedDraft[] = [];
    // A user changed without a package named (an e-mail, a limit of its own): no plan to apply.
    if (plan.value !== undefined) {
      drafts.push({
        // The package's items come with it in user.conf: the custom item says whether it includes web protection.
        draft: {
          type: 'plan.changed',
          account: account.value as string,
          plan: plan.value,
          protection: directAdminProtection((name) => env[name]),
        },
        from: { account: account.from, plan: plan.from },
      });
    }
    // The owner as user.conf has it now: applying it again changes nothing.
    if (creator.value !== undefined) {
      drafts.push({
        draft: {
          type: 'account.transferred',
          account: account.value as string,
          reseller: resellerOf(creator.value, HOST_OWNERS.directadmin),
        },
        from: { account: account.from, reseller: creator.from },
      });
    }
    return drafts;
  },
  domain_create_post: domainEvent('domain.added'),
  domain_destroy_post: domainEvent('domain.removed'),
  subdomain_create_post: subdomainEvent('subdomain.added'),
  subdomain_destroy_post: subdomainEvent('subdomain.removed'),
};

const isDirectAdminHook = (hook: string): hook is DirectAdminHook => (DIRECTADMIN_HOOKS as readonly string[]).includes(hook);

/**
 * `files`: the user's files, for domain_change_post (optional: without them the subdomains are
 * the plan's) and user_restore_post (required: the environment names only the user).
 */
export function translateDirectAdminHook(
  hook: string,
  env: Record<string, string | undefined>,
  now?: Date,
  files?: DirectAdminUserFiles,
): AdapterResult {
  // Callers may pass the script's file name.
  const name = hook.trim().replace(/\.sh$/, '');
  if (!isDirectAdminHook(name)) {
    return failure(`unsupported DirectAdmin hook "${hook}"; supported: ${DIRECTADMIN_HOOKS.join(', ')}`, [
      { path: 'hook', message: 'unsupported hook' },
    ]);
  }
  const label = `DirectAdmin ${name}`;
  // The user's first domain is created with the user; user_create_post already provisions it.
  if (name === 'domain_create_post' && text(env.user_creation) === '1') {
    return nothingToDo(`${label}: ignored: the domain was created with its user (user_creation=1), covered by user_create_post`);
  }
  let drafts: SourcedDraft[];
  if (name === 'domain_change_post') drafts = domainChange(env, files);
  else if (name === 'user_restore_post') {
    if (files === undefined)
      return failure(`${label}: the user's files were not read: nothing to restore from`, [{ path: 'username', message: 'no user files' }]);
    drafts = restoredUser(env, files);
  } else drafts = TRANSLATIONS[name](env);
  if (drafts.length === 0) return nothingToDo(`${label}: no package and no owner named, so nothing to apply`);
  return finishDrafts('directadmin', label, drafts, now);
}
