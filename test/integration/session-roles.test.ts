/**
 * A session serves only the role it was created for. A customer who copies their own
 * `wpp_customer` cookie into a cookie named `wpp_admin` (or an admin the other way round)
 * gets no page and changes nothing, on every route of the other area, even with their own
 * session's CSRF token; the session is ended, counted and logged without its cookie.
 * The routes are read from the pages' router, so a page added later is covered too.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { CALLBACK_REREAD_SPACING_MS } from '../../src/core/job-queue.js';
import { signBody } from '../../src/core/signature.js';
import { createPagesRouter, type PagesDeps } from '../../src/web/pages/pages.routes.js';
import { createPageClient } from '../helpers/page-client.js';
import { admin, customer, launchUrl, reseller, type LaunchTarget } from '../helpers/pages.js';
import { TEST_PANEL_SECRET, withDemoPlugin, type DemoPlugin } from '../helpers/plugin.js';
import { routesOf } from '../helpers/routes.js';
import { waitFor } from '../helpers/wait.js';

type Role = 'customer' | 'admin' | 'reseller';
const ROLES: readonly Role[] = ['customer', 'admin', 'reseller'];
const AREA_OF: Record<Role, string> = { customer: '/panel', admin: '/admin', reseller: '/reseller' };
const roleOfPath = (path: string): Role => (path.startsWith('/admin') ? 'admin' : path.startsWith('/reseller') ? 'reseller' : 'customer');

/** Stands in for every dependency: the routers are built only to list their routes, never asked anything. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a stand-in of any shape
const anything: any = new Proxy(function stub() {}, { get: (_t, p) => (p === 'then' ? undefined : anything), apply: () => anything });

/** Every route of the customer (/panel), admin (/admin) and reseller (/reseller) areas, demo pages included. */
const AREA_ROUTES = routesOf(createPagesRouter(anything as PagesDeps)).filter((r) => /^\/(panel|admin|reseller)(\/|$)/.test(r.path));

/** Fields a form of any of these routes might read: had the guard let one through, it would act. */
const FORM_FIELDS = {
  account: 'bob',
  domain: 'bob.example',
  domains: 'bob.example',
  hits: '500',
  blocked: '0',
  website_hits: '1',
  account_hits: '1',
  plan: 'small',
  auto_protect: 'off',
  notify_url: 'http://127.0.0.1:9/x',
  return_to: 'list',
};

/** How far the demo plugin's clock runs ahead of the sandbox's: provision moves it past the held re-reads. */
let clockOffset = 0;

/** A demo plugin (the demo pages exist) whose log lines are kept. */
async function withLoggedDemoPlugin<T>(fn: (plugin: DemoPlugin, logs: string[]) => Promise<T>): Promise<T> {
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString());
      done();
    },
  });
  clockOffset = 0;
  return withDemoPlugin((plugin) => fn(plugin, logs), { logger: pino({ level: 'info' }, stream), now: () => Date.now() + clockOffset });
}

/** Every row of every table of every SQLite file under `dir` (the plugin's and the sandbox's), sessions aside. */
function snapshot(dir: string): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.sqlite') || f.endsWith('.db'));
  for (const file of files) {
    const db = new Database(join(dir, file), { readonly: true, fileMustExist: true });
    try {
      const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
      for (const { name } of tables) {
        if (name === 'sessions' || name === 'launch_nonces') continue;
        out[`${file}:${name}`] = db.prepare(`SELECT * FROM "${name}"`).all();
      }
    } finally {
      db.close();
    }
  }
  return out;
}

/** Signs `role` in afresh: its cookie value and the CSRF token of its own home page. */
async function signIn(plugin: LaunchTarget, role: Role) {
  const client = createPageClient(plugin.url);
  const launched = await client.get(
    launchUrl(plugin, role === 'admin' ? admin('root') : role === 'reseller' ? reseller('res1') : customer('alice')),
  );
  expect(launched.status).toBe(303);
  const home = await client.get(AREA_OF[role]);
  expect(home.status).toBe(200);
  const cookie = client.cookies.get(`wpp_${role}`);
  expect(cookie).toBeTruthy();
  expect(client.csrfToken).toBeTruthy();
  return { cookie: cookie as string, csrf: client.csrfToken as string };
}

const concrete = (path: string) => path.replace(':domain', 'alice.example').replace(':id', '1');

async function provision(plugin: DemoPlugin) {
  const body = JSON.stringify([
    { type: 'account.created', account: 'alice' },
    { type: 'domain.added', account: 'alice', domain: 'alice.example' },
    { type: 'account.created', account: 'bob' },
    { type: 'domain.added', account: 'bob', domain: 'bob.example' },
  ]);
  const answer = await fetch(`${plugin.url}/hooks/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-wpp-signature': signBody(body, TEST_PANEL_SECRET) },
    body,
  });
  expect(answer.status).toBe(202);
  await waitFor(() => plugin.accounts.getWebsite('bob.example')?.providerStatus != null, 10_000, 'bob.example provisioned');
  // The sandbox's own clock done with both websites (DNS seen after 2 s, the certificate issued 5 s
  // later), every callback it queued delivered, and every job done, the re-reads those callbacks hold
  // back for CALLBACK_REREAD_SPACING_MS included (the plugin's clock moves past them): only the
  // requests under test can change a row. Without this, the DNS timer could move bob.example, or a
  // held re-read run, between the snapshots.
  const sandbox = plugin.sandbox as NonNullable<DemoPlugin['sandbox']>;
  const headers = { authorization: `Bearer ${sandbox.partnerKey}` };
  const settled = async (domain: string) => {
    const website = (await (await fetch(`${sandbox.url}/v1.0/website?domain=${domain}`, { headers })).json()) as {
      status: string;
      certificate_status: string;
    };
    return website.status === 'online' && website.certificate_status === 'issued';
  };
  await waitFor(
    async () => {
      if (!(await settled('alice.example')) || !(await settled('bob.example'))) return false;
      const callbacks = (await (await fetch(`${sandbox.url}/_sandbox/callbacks?limit=1000`, { headers })).json()) as {
        delivered_at: string | null;
      }[];
      if (!callbacks.every((c) => c.delivered_at)) return false;
      const counts = plugin.jobs.counts();
      const held = plugin.jobs.list({ state: 'pending', limit: 100 }).some((job) => job.runAt > Date.now() + clockOffset);
      if (held) clockOffset += CALLBACK_REREAD_SPACING_MS;
      return counts.pending === 0 && counts.running === 0;
    },
    20_000,
    'the sandbox to verify DNS, issue certificates and deliver its callbacks, and the job queue to drain',
  );
}

describe('a session serves only its own role', () => {
  it('lists the routes it checks (the router is read, not a list kept by hand)', () => {
    expect(AREA_ROUTES.length).toBeGreaterThan(30);
    expect(AREA_ROUTES).toContainEqual({ method: 'POST', path: '/admin/jobs/retry-dead' });
    expect(AREA_ROUTES).toContainEqual({ method: 'POST', path: '/admin/demo/customer-view' });
    expect(AREA_ROUTES).toContainEqual({ method: 'POST', path: '/panel/domains/:domain/settings' });
    expect(AREA_ROUTES).toContainEqual({ method: 'GET', path: '/reseller' });
  });

  it('a cookie moved to another role’s name is refused on every route, ends its session and changes nothing', async () => {
    await withLoggedDemoPlugin(async (plugin, logs) => {
      const { dataDir } = plugin;
      await provision(plugin);
      const before = snapshot(dataDir);
      const refused: string[] = [];
      /** What each route answered, and whether the session still opened its own pages afterwards. */
      const answers: Record<string, string> = {};
      const attempts = AREA_ROUTES.flatMap((route) =>
        ROLES.filter((role) => role !== roleOfPath(route.path)).map((other) => ({ route, other })),
      );
      for (const { route, other } of attempts) {
        const area = roleOfPath(route.path);
        const { cookie, csrf } = await signIn(plugin, other);
        const headers: Record<string, string> = { cookie: `wpp_${area}=${cookie}` };
        let body: URLSearchParams | undefined;
        if (route.method === 'POST') {
          body = new URLSearchParams({ ...FORM_FIELDS, _csrf: csrf });
          headers['x-csrf-token'] = csrf;
        }
        const answer = await fetch(`${plugin.url}${concrete(route.path)}`, { method: route.method, headers, body, redirect: 'manual' });
        const text = await answer.text();
        const cleared = answer.headers.getSetCookie().some((line) => line.startsWith(`wpp_${area}=;`));
        // The session was ended: it no longer opens its own pages either.
        const own = await fetch(`${plugin.url}${AREA_OF[other]}`, {
          headers: { cookie: `wpp_${other}=${cookie}` },
          redirect: 'manual',
        });
        answers[`${route.method} ${route.path} (${other} session)`] =
          `${answer.status}${text.includes('bob.example') ? ' showing bob.example' : ''}${cleared ? '' : ', cookie kept'}, own pages ${own.status}`;
        refused.push(cookie);
      }
      expect(answers).toEqual(Object.fromEntries(Object.keys(answers).map((key) => [key, '401, own pages 401'])));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(snapshot(dataDir)).toEqual(before);

      // The plugin's own registry, as a scraper on the same machine reads it (loopback needs no token).
      const metrics = await (await fetch(`${plugin.url}/metrics`)).text();
      // Each area's routes were tried with the two other roles' sessions: counted under the area's role.
      for (const role of ROLES) {
        const tried = 2 * AREA_ROUTES.filter((r) => roleOfPath(r.path) === role).length;
        expect(metrics).toContain(`wpp_session_refusals_total{role="${role}",reason="wrong_role"} ${tried}`);
      }
      const lines = logs.filter((line) => line.includes('"reason":"wrong_role"'));
      expect(lines).toHaveLength(attempts.length);
      expect(lines[0]).toContain('page session refused');
      for (const cookie of refused) expect(logs.join('\n')).not.toContain(cookie);
    });
  }, 60_000);
});
