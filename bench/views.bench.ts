/**
 * The pages under a fleet: the admin websites page (a search, a filter, page 50) over
 * 100,000 websites, and a customer's domain page with 30 days of hourly statistics, served
 * by the compiled plugin (dist/) in its own process with its provider, a sandbox, in another.
 *
 * Not timed: the plugin's database is seeded (bench/lib/views-seed.ts: `websites` websites
 * over websites/3 accounts, quota levels, jobs, actions, runs) plus 720 hourly buckets for
 * the customer's domain, which also exists at the sandbox (the domain page reads its
 * settings there). An admin and the customer sign in with launch tokens.
 *
 * Timed: `requests` sequential GETs of each page after `warmup` (one browser's clicks; the
 * server renders one page at a time anyway). Reports p50, p95 and max in ms per page, the
 * bytes of each page, and the plugin's peak RSS. The run fails unless every answer is a 200
 * holding the expected rows.
 *
 *   npm run bench -- views [--websites 100000] [--requests 200] [--warmup 20]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { createLaunchToken, type LaunchRequest } from '../src/core/launch-tokens.js';
import { openPluginDatabase } from '../src/db/plugin-database.js';
import { readSignInKey } from '../src/secrets.js';
import { buildDist, peakRssMb, startChild } from './lib/proc.js';
import { percentile, round1 } from './lib/stats.js';
import { createTempDir, removeTempDir } from './lib/temp.js';
import { seedViewsDatabase, viewsAccountOf, viewsDomainOf } from './lib/views-seed.js';

const CHILD = new URL('./lib/child.ts', import.meta.url).pathname;
const VIEWS_CHILD = new URL('./lib/views-child.mjs', import.meta.url).pathname;
const PANEL_SECRET = 'bench-panel-secret-0123456789abcdef';
const HOUR_MS = 3_600_000;

/** Signs in with a launch token signed with the plugin's sign-in key (as `wpp launch-url` does); returns the session cookie. */
async function signIn(url: string, dataDir: string, request: LaunchRequest): Promise<string> {
  const { token } = createLaunchToken(readSignInKey(dataDir), request, { now: Date.now() });
  const answer = await fetch(`${url}/launch?token=${token}`, { redirect: 'manual' });
  const cookie = answer.headers.getSetCookie()[0]?.split(';')[0];
  if (answer.status !== 303 || !cookie) throw new Error(`sign-in failed: ${answer.status}`);
  return cookie;
}

/** Sequential GETs; the latency of each in ms. Fails on any answer but 200 or one without every text of `mustContain`. */
async function timePage(url: string, cookie: string, n: number, mustContain: string[]): Promise<{ ms: number[]; bytes: number }> {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const answer = await fetch(url, { headers: { cookie } });
    const body = await answer.text();
    ms.push(performance.now() - started);
    if (answer.status !== 200 || !mustContain.every((text) => body.includes(text)))
      throw new Error(`GET ${url}: ${answer.status}, expected ${JSON.stringify(mustContain)}`);
    bytes = body.length;
  }
  return { ms, bytes };
}

/** 30 days of hourly buckets for one website, as the sync writes them. */
function seedHourly(db: ReturnType<typeof openPluginDatabase>, domain: string, account: string, now: number): void {
  const insert = db.prepare(
    'INSERT OR REPLACE INTO hits_hourly (domain, account, hour, total, permitted, blocked, mitigated) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const last = Math.floor(now / HOUR_MS);
  db.transaction(() => {
    for (let hour = last - 30 * 24 + 1; hour <= last; hour++) {
      const total = 500 + ((hour * 7919) % 400);
      const blocked = Math.floor(total * 0.1);
      insert.run(domain, account, hour, total, total - blocked, blocked, Math.floor(blocked / 2));
    }
  })();
}

export async function run(args: string[]) {
  buildDist();
  const { values } = parseArgs({
    args,
    options: {
      websites: { type: 'string', default: '100000' },
      requests: { type: 'string', default: '200' },
      warmup: { type: 'string', default: '20' },
    },
  });
  const n = Number(values.websites);
  const requests = Number(values.requests);
  const warmup = Number(values.warmup);
  // 1 in 10 domains starts with shop- and about 85% of those are online: page 50 (rows 2,451 to 2,500) needs 30,000 websites.
  if (!(n >= 30_000 && requests > 0 && warmup >= 0))
    throw new Error('bad options (--websites at least 30000, for a page 50 of the search)');

  const dir = createTempDir('wpp-bench-views-');
  const sandbox = await startChild<{ url: string; partnerKey: string }>(
    CHILD,
    ['sandbox', JSON.stringify({ dataDir: join(dir, 'sandbox') })],
    {
      stderr: join(dir, 'sandbox.log'),
    },
  );
  try {
    const accounts = Math.round(n / 3);
    const domain = viewsDomainOf(0);
    const account = viewsAccountOf(0, accounts);
    const { url: sandboxUrl, partnerKey } = sandbox.ready;
    const call = (path: string, body: unknown) =>
      fetch(`${sandboxUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${partnerKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => {
        if (!r.ok) throw new Error(`sandbox ${path}: ${r.status}`);
      });
    await call('/v1.0/user', { id: `${account}@panel.example` });
    await call('/v1.0/website', { domain, user_id: `${account}@panel.example`, ip: ['203.0.113.1'], subdomain: ['www'] });

    const env: Record<string, string> = {
      WPP_DATA_DIR: join(dir, 'plugin'),
      WPP_HOST: '127.0.0.1',
      WPP_PORT: '0',
      WPP_PROVIDER_URL: sandboxUrl,
      WPP_PROVIDER_API_KEY: partnerKey,
      WPP_PANEL_SECRET: PANEL_SECRET,
      WPP_ACCOUNT_DOMAIN: 'panel.example',
      WPP_SERVER_IP: '203.0.113.1',
      WPP_LOG_LEVEL: 'warn',
    };
    let t = performance.now();
    const now = Date.now();
    const db = openPluginDatabase(loadConfig(env));
    try {
      seedViewsDatabase(db, { n, accounts, now });
      seedHourly(db, domain, account, now);
    } finally {
      db.close();
    }
    console.error(`seeded ${n} websites over ${accounts} accounts in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const plugin = await startChild<{ url: string; pid: number }>(VIEWS_CHILD, [], { env, stderr: join(dir, 'plugin.log') });
    try {
      const { url } = plugin.ready;
      const pages = [
        {
          name: 'admin_websites',
          url: `${url}/admin/websites?q=shop&state=online&page=50`,
          cookie: await signIn(url, env.WPP_DATA_DIR as string, { role: 'admin', admin: 'bench', panel: 'bench' }),
          // Page 50 of the matches, and a row of it: the search, the filter and the page all applied.
          mustContain: ['page 50 of', 'shop-'],
        },
        {
          name: 'customer_domain_30d',
          url: `${url}/panel/domains/${domain}?range=30d`,
          cookie: await signIn(url, env.WPP_DATA_DIR as string, { role: 'customer', account, panel: 'bench' }),
          mustContain: [domain, 'id="hits-data"'],
        },
      ];
      const results: Record<string, unknown> = {};
      for (const page of pages) {
        t = performance.now();
        await timePage(page.url, page.cookie, warmup, page.mustContain);
        const { ms, bytes } = await timePage(page.url, page.cookie, requests, page.mustContain);
        results[page.name] = {
          p50_ms: round1(percentile(ms, 50)),
          p95_ms: round1(percentile(ms, 95)),
          max_ms: round1(Math.max(...ms)),
          bytes,
          requests,
        };
        console.error(`${page.name}: ${JSON.stringify(results[page.name])} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      }
      return { websites: n, accounts, ...results, plugin_peak_rss_mb: peakRssMb(plugin.pid) };
    } finally {
      await plugin.stop();
    }
  } finally {
    await sandbox.stop();
    removeTempDir(dir);
  }
}
