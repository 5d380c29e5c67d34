/**
 * `wpp directadmin-launch --account|--admin|--reseller|--menu`: what the DirectAdmin pages run, as the signed-in
 * DirectAdmin user (never root: recent DirectAdmin refuses to run plugin pages as uid 0). It
 * cannot sign anyone in itself (the sign-in key is the service's); it hands the session to the
 * running plugin, which asks DirectAdmin whose it is, and prints the launch URL it gets back.
 * `--menu` (the user's Evolution menu) prints instead whether the entry is shown.
 *
 * The session comes on standard input, one value a line (session id, session key, user,
 * selected domain), never as arguments, which every local user can read in `ps`.
 */
import { Command } from 'commander';
import { z } from 'zod';
import { standaloneConfigFromEnv, UsageError } from './shared.js';

/** Standard input, at most 4 KB: four short lines are all a page sends. */
async function readStandardInput(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += (chunk as Buffer).toString('utf8');
    if (text.length > 4096) throw new UsageError('standard input holds more than a DirectAdmin session');
  }
  return text;
}

const answerSchema = z.object({ url: z.string().regex(/^https?:\/\/[A-Za-z0-9:/?#&=._~%+-]+$/) });
const menuAnswerSchema = z.object({ entry: z.boolean() });
const refusalSchema = z.object({ message: z.string() });

type PageRole = 'customer' | 'admin' | 'reseller';

/** Hands a page's question to the running plugin and returns its answer; a refusal is an error with the plugin's message. */
async function askPlugin(path: string, body: Record<string, unknown>): Promise<unknown> {
  // WPP_HOOK_URL: the plugin's own address on this server (the page cannot read /etc/wpp/env: the default, 127.0.0.1:8080).
  const { hook } = standaloneConfigFromEnv();
  const response = await fetch(`${hook.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    redirect: 'error',
    signal: AbortSignal.timeout(15_000),
  });
  const answer: unknown = await response.json().catch(() => ({}));
  if (!response.ok) {
    const refusal = refusalSchema.safeParse(answer);
    throw new UsageError(
      `the plugin refused the DirectAdmin session (${response.status}): ${refusal.success ? refusal.data.message : 'no message'}`,
    );
  }
  return answer;
}

async function run(role: PageRole): Promise<void> {
  const [sessionId = '', sessionKey = '', username = '', domain = ''] = (await readStandardInput()).split('\n');
  // A user's page answers as DirectAdmin sets the values: the service checks them all (400 for any it does not take).
  const body = { role, sessionId, sessionKey, username, ...(domain.trim() === '' ? {} : { domain: domain.trim() }) };
  const parsed = answerSchema.safeParse(await askPlugin('/panel-launch/directadmin', body));
  if (!parsed.success) throw new Error('the plugin answered without a launch URL');
  console.log(parsed.data.url);
}

/** The user's menu (user/menu.raw): prints `shown` or `hidden`, as the user's package item says (DirectAdmin's answer). */
async function runMenu(): Promise<void> {
  const [sessionId = '', sessionKey = '', username = ''] = (await readStandardInput()).split('\n');
  const parsed = menuAnswerSchema.safeParse(await askPlugin('/panel-launch/directadmin/menu', { sessionId, sessionKey, username }));
  if (!parsed.success) throw new Error('the plugin answered without saying whether to show the entry');
  console.log(parsed.data.entry ? 'shown' : 'hidden');
}

export const directadminLaunchCommand = () =>
  new Command('directadmin-launch')
    .description("DirectAdmin's pages: hand the signed-in session (standard input) to the plugin and print the launch URL it issues")
    .option('--account', "the user's own pages (DirectAdmin's user level)")
    .option('--admin', "the admin pages (DirectAdmin's admin level; DirectAdmin must say the session is an admin's)")
    .option('--reseller', "the reseller's pages (DirectAdmin's reseller level; DirectAdmin must say the session is a reseller's)")
    .option('--menu', "the user's menu: print shown or hidden, as the user's package item wpp_web_protection says")
    .action(async (options: { account?: boolean; admin?: boolean; reseller?: boolean; menu?: boolean }) => {
      if (options.menu) {
        if (options.account || options.admin || options.reseller) throw new UsageError('--menu takes no other option');
        await runMenu();
        return;
      }
      const roles: PageRole[] = [];
      if (options.account) roles.push('customer');
      if (options.admin) roles.push('admin');
      if (options.reseller) roles.push('reseller');
      const [role] = roles;
      if (roles.length !== 1 || role === undefined) throw new UsageError('give one of --account, --admin or --reseller');
      await run(role);
    });
