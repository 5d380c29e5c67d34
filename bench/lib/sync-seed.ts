/**
 * The world of the sync bench, the same on both sides: website i is `site-i.sync.bench.example`
 * of panel account `customer{i % users}` (provider user `customer{i % users}@panel.bench.example`),
 * with cumulative hits that depend on i only (deterministic), so the bench knows what the sync
 * must read and what enforcement must do:
 *
 *   - 1% over the per-website limit (i % 100 === 37): hits in [limit, 2 * limit), to be paused;
 *   - 2% in the warning band (i % 50 === 11): hits in [0.85 * limit, 0.99 * limit);
 *   - the rest: hits in [1, limit / 2).
 *
 * Each website also has some blocked (10% at most) and challenged (5% at most) hits.
 */
import { hashToken, providerUserIdFor } from '../../src/core/identity.js';
import type { Db } from '../../src/db/open.js';

export const ACCOUNT_DOMAIN = 'panel.bench.example';
export const ORIGIN_IP = '203.0.113.10';

export const domainOf = (i: number) => `site-${i}.sync.bench.example`;
export const accountOf = (i: number, users: number) => `customer${i % users}`;
/** The plugin's own mapping, so the seed names users exactly as provisioning would. */
export const userIdOf = (account: string) => providerUserIdFor(account, ACCOUNT_DOMAIN);

/** A small, fast hash of (i, salt) to [0, 1): the same numbers every run. */
export function unit(i: number, salt: number): number {
  let x = (Math.imul(i ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(salt, 0xc2b2ae35)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d) >>> 0;
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b) >>> 0;
  return ((x ^ (x >>> 16)) >>> 0) / 4_294_967_296;
}

export type Band = 'over' | 'warning' | 'normal';
export const bandOf = (i: number): Band => (i % 100 === 37 ? 'over' : i % 50 === 11 ? 'warning' : 'normal');

export interface SeededTraffic {
  hits: number;
  blocked: number;
  mitigated: number;
}

export function trafficOf(i: number, limit: number): SeededTraffic {
  const band = bandOf(i);
  const u = unit(i, 1);
  const hits =
    band === 'over'
      ? limit + Math.floor(u * limit)
      : band === 'warning'
        ? Math.floor(limit * (0.85 + 0.14 * u))
        : 1 + Math.floor(u * (limit / 2 - 1));
  const blocked = Math.floor(hits * 0.1 * unit(i, 2));
  const mitigated = Math.floor(hits * 0.05 * unit(i, 3));
  return { hits, blocked, mitigated };
}

/** What a correct sync and enforcement pass over websites [0, n) must produce. */
export function expectations(n: number, limit: number) {
  let over = 0;
  let warning = 0;
  let totalHits = 0;
  for (let i = 0; i < n; i++) {
    const band = bandOf(i);
    if (band === 'over') over++;
    else if (band === 'warning') warning++;
    totalHits += trafficOf(i, limit).hits;
  }
  return { over, warning, totalHits };
}

export interface SeededUser {
  account: string;
  userId: string;
  apiKey: string;
}

async function call(url: string, key: string, method: string, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as unknown;
}

/** Runs `fn` over 0..count-1, `concurrency` at a time. */
async function inParallel(count: number, concurrency: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

/**
 * The provider side: `users` users through /v1.0/user, then every user's websites through
 * POST /_sandbox/websites/bulk, then every website's hits through POST /_sandbox/traffic.
 */
export async function seedSandbox(options: {
  url: string;
  partnerKey: string;
  n: number;
  users: number;
  limit: number;
  /** Each website's cumulative hits; default this bench's bands (trafficOf). */
  traffic?: (i: number) => SeededTraffic;
}): Promise<SeededUser[]> {
  const { url, partnerKey, n, users, limit } = options;
  const traffic = options.traffic ?? ((i: number) => trafficOf(i, limit));
  const seeded: SeededUser[] = new Array<SeededUser>(users);
  await inParallel(users, 16, async (u) => {
    const account = `customer${u}`;
    const answer = (await call(url, partnerKey, 'POST', '/v1.0/user', { id: userIdOf(account) })) as { api_key: string };
    seeded[u] = { account, userId: userIdOf(account), apiKey: answer.api_key };
  });
  await inParallel(users, 4, async (u) => {
    const domains: string[] = [];
    for (let i = u; i < n; i += users) domains.push(domainOf(i));
    if (domains.length === 0) return;
    const answer = (await call(url, partnerKey, 'POST', '/_sandbox/websites/bulk', {
      user_id: userIdOf(`customer${u}`),
      domains,
      ip: [ORIGIN_IP],
    })) as { created: number };
    if (answer.created !== domains.length) throw new Error(`bulk created ${answer.created} of ${domains.length} websites`);
  });
  for (let start = 0; start < n; start += 20_000) {
    const items = [];
    for (let i = start; i < Math.min(n, start + 20_000); i++) items.push({ domain: domainOf(i), ...traffic(i) });
    const answer = (await call(url, partnerKey, 'POST', '/_sandbox/traffic', items)) as { applied: number };
    if (answer.applied !== items.length) throw new Error(`traffic applied to ${answer.applied} of ${items.length} websites`);
  }
  return seeded;
}

/**
 * The plugin side, straight into its database in one transaction: the accounts (with their
 * users' keys) and their websites as provisioning leaves them (active, online, read once),
 * and a global per-website hit limit.
 */
export function seedPluginDatabase(
  db: Db,
  options: { n: number; users: SeededUser[]; limit: number; now?: number; only?: (i: number) => boolean },
): void {
  // A server of a fleet holds some of the websites (and their accounts): `only` says which.
  const only = options.only ?? (() => true);
  const at = options.now ?? Date.now();
  const insertAccount = db.prepare(
    `INSERT INTO accounts (account, email, plan, provider_user_id, provider_api_key, state, created_at, updated_at)
     VALUES (?, NULL, NULL, ?, ?, 'active', ?, ?)`,
  );
  const insertWebsite = db.prepare(
    `INSERT INTO websites (domain, account, subdomains, origin_ips, state, desired_status, paused_by, provider_status,
       provider_checked_at, callback_token_hash, created_at, updated_at)
     VALUES (?, ?, '["www"]', ?, 'active', 'online', NULL, 'online', ?, ?, ?, ?)`,
  );
  const insertLimit = db.prepare(
    "INSERT INTO limits (scope, subject, website_hits, updated_at) VALUES ('global', '', ?, ?) ON CONFLICT (scope, subject) DO UPDATE SET website_hits = excluded.website_hits",
  );
  const origin = JSON.stringify([ORIGIN_IP]);
  db.transaction(() => {
    options.users.forEach((user, u) => {
      if (only(u)) insertAccount.run(user.account, user.userId, user.apiKey, at, at);
    });
    for (let i = 0; i < options.n; i++) {
      if (!only(i)) continue;
      const domain = domainOf(i);
      const tokenHash = hashToken(`bench-callback-token:${domain}`);
      insertWebsite.run(domain, accountOf(i, options.users.length), origin, at, tokenHash, at, at);
    }
    insertLimit.run(options.limit, at);
  })();
}
