/**
 * The DirectAdmin hooks that need the user's files besides their environment (see
 * adapters/directadmin.ts): the files are read as `wpp import directadmin` reads them
 * (listings/directadmin.ts), under the root the hook runs with, then the adapter translates.
 */
import type { ToolRunner } from '../install/tools.js';
import { accountNameSchema } from './events.js';
import { failure, text, type AdapterResult } from './adapters/result.js';
import { translateDirectAdminHook, type DirectAdminUserFiles } from './adapters/directadmin.js';
import { DIRECTADMIN_USERS, readDirectAdminUser } from './listings/directadmin.js';

const NEEDS_FILES = new Set(['domain_change_post', 'user_restore_post']);

async function userFiles(tools: ToolRunner, user: string): Promise<DirectAdminUserFiles | null> {
  const listed = await readDirectAdminUser(tools, user);
  if (listed === null) return null;
  const domains = listed.domains ?? [];
  return {
    email: listed.email,
    plan: listed.plan,
    suspended: listed.suspended === true,
    reseller: listed.reseller,
    ip: domains.find((domain) => domain.ip !== undefined)?.ip,
    domains: domains.map(({ domain, subdomains }) => ({ domain, subdomains: subdomains ?? [] })),
  };
}

export async function translateDirectAdminHookWithFiles(
  hook: string,
  env: Record<string, string | undefined>,
  tools: ToolRunner,
  now?: Date,
): Promise<AdapterResult> {
  const name = hook.trim().replace(/\.sh$/, '');
  // A user name that is no DirectAdmin user name never becomes a path; the adapter says what is wrong with it.
  const user = accountNameSchema.safeParse(text(env.username) ?? '');
  if (!NEEDS_FILES.has(name) || !user.success || !/^[a-z0-9][a-z0-9_-]*$/.test(user.data)) return translateDirectAdminHook(hook, env, now);
  const files = await userFiles(tools, user.data);
  if (files === null && name === 'user_restore_post') {
    return failure(`DirectAdmin user_restore_post: ${DIRECTADMIN_USERS}/${user.data}/user.conf is not there: nothing to restore from`, [
      { path: 'username', message: 'no such DirectAdmin user' },
    ]);
  }
  return translateDirectAdminHook(hook, env, now, files ?? undefined);
}
