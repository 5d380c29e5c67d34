/**
 * DirectAdmin hook scripts -> panel events. DirectAdmin runs
 * scripts/custom/<hook>.sh (or <hook>/<name>.sh) with the values in the environment;
 * user_create_post and user_modify_post also get the whole user.conf (username, email,
 * domain, package, ip...). A user moved to another package is a user_modify_post naming it
 * (the package_* hooks are for editing the packages themselves).
 */
import { failure, finishDrafts, nothingToDo, relativeLabel, text, type AdapterResult, type SourcedDraft } from './result.js';

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
] as const satisfies readonly string[];

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

const TRANSLATIONS: Record<DirectAdminHook, (env: Env) => SourcedDraft[]> = {
  user_create_post: (env) => {
    const account = value(env, 'username');
    const email = value(env, 'email');
    const plan = value(env, 'package');
    const domain = value(env, 'domain');
    const ip = value(env, 'ip');
    const drafts: SourcedDraft[] = [
      {
        draft: { type: 'account.created', account: account.value as string, email: email.value, plan: plan.value },
        from: { account: account.from, email: email.from, plan: plan.from },
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
    // A user changed without a package named (an e-mail, a limit of its own): no plan to apply.
    if (plan.value === undefined) return [];
    return [
      {
        draft: { type: 'plan.changed', account: account.value as string, plan: plan.value },
        from: { account: account.from, plan: plan.from },
      },
    ];
  },
  domain_create_post: domainEvent('domain.added'),
  domain_destroy_post: domainEvent('domain.removed'),
  subdomain_create_post: subdomainEvent('subdomain.added'),
  subdomain_destroy_post: subdomainEvent('subdomain.removed'),
};

const isDirectAdminHook = (hook: string): hook is DirectAdminHook => (DIRECTADMIN_HOOKS as readonly string[]).includes(hook);

export function translateDirectAdminHook(hook: string, env: Record<string, string | undefined>, now?: Date): AdapterResult {
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
  const drafts = TRANSLATIONS[name](env);
  if (drafts.length === 0) return nothingToDo(`${label}: no package named, so no plan to apply`);
  return finishDrafts('directadmin', label, drafts, now);
}
