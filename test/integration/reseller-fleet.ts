/**
 * A fleet of three owners for the reseller pages' tests: res1's customer alice (alice.example,
 * alice2.example), res2's customer bob (bob.example) and the host's own carol (carol.example),
 * provisioned with auto-protect off (each website waits in setup for bulk protect), with limits
 * rows and enforcement actions of each owner's. Values marked 7770xx are the others' only, so a
 * page that shows one has leaked it.
 */
import { createPageClient } from '../helpers/page-client.js';
import { launchUrl, reseller } from '../helpers/pages.js';
import type { startTestPlugin } from '../helpers/plugin.js';

type Plugin = Awaited<ReturnType<typeof startTestPlugin>>;

export const OWNERS = { alice: 'res1', bob: 'res2', carol: null } as const;
export const DOMAINS = { alice: ['alice.example', 'alice2.example'], bob: ['bob.example'], carol: ['carol.example'] } as const;

/** The plugin's env for the fleet: websites wait in setup, as for a host that protects by bulk protect. */
export const FLEET_ENV = { WPP_AUTO_PROTECT: 'false' };

export async function seedFleet(plugin: Plugin): Promise<void> {
  const events = Object.entries(DOMAINS).flatMap(([account, domains]) => [
    { type: 'account.created', account },
    ...domains.map((domain) => ({ type: 'domain.added', account, domain })),
  ]);
  const answer = await plugin.postEvents(events);
  if (answer.status !== 202) throw new Error(`events refused: ${answer.status}`);
  await plugin.idle();
  for (const [account, owner] of Object.entries(OWNERS)) plugin.accounts.setAccountReseller(account, owner);
  plugin.stats.setLimits('account', 'alice', { websiteHits: 5000 });
  plugin.stats.setLimits('account', 'bob', { websiteHits: 777001 });
  plugin.stats.setLimits('website', 'bob.example', { websiteHits: 777002 });
  plugin.stats.setLimits('account', 'carol', { accountHits: 777003 });
  plugin.stats.setLimits('website', 'carol.example', { websiteHits: 777004 });
  const now = Date.now();
  const action = (account: string, domain: string, usage: number) => ({
    at: now - 60_000,
    account,
    domain,
    action: 'warning' as const,
    actor: 'enforcement',
    reason: 'approaching_limit',
    usage,
    limitValue: 1000,
    periodStart: now - 86_400_000,
    periodEnd: now + 86_400_000,
    statusBefore: 'setup',
    statusAfter: 'setup',
    actionKey: `warning:${domain}`,
  });
  plugin.stats.recordAction(action('alice', 'alice.example', 900));
  plugin.stats.recordAction(action('bob', 'bob.example', 777005));
  plugin.stats.recordAction(action('carol', 'carol.example', 777006));
}

/** res1 signed in: a page client with their session cookie and CSRF token. */
export async function signInReseller(plugin: { url: string; dataDir: string }, name = 'res1') {
  const client = createPageClient(plugin.url);
  const launched = await client.get(launchUrl(plugin, reseller(name)));
  if (launched.status !== 303) throw new Error(`launch refused: ${launched.status}`);
  await client.get('/reseller');
  return client;
}

/** Whether an answer shows anything of bob's or carol's (their names, domains or their 7770xx values, in any number format). */
export const othersIn = (body: string): string[] =>
  [
    'bob',
    'carol',
    ...['1', '2', '3', '4', '5', '6'].flatMap((n) => [`77700${n}`, `777,00${n}`, `777.00${n}`, `777 00${n}`, `777 00${n}`]),
  ].filter((needle) => body.includes(needle));
